import { execFile } from 'node:child_process';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatPullRequests } from '../../src/cli/commands/prs.js';
import { formatSpecError } from '../../src/definitions/rules/format.js';
import { specErrorsComment } from '../../src/write-back/spec-errors.js';
import { escapeControl, escapeControlKeepLines } from '../../src/util/escape-control.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

function gpuops(cwd: string, ...args: string[]): Promise<{ code: number; stdout: string }> {
  return new Promise((resolve) => {
    execFile('node', [path.join(root, 'bin/gpuops.js'), ...args], { cwd }, (err, stdout) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout });
    });
  });
}

// A YAML key with a newline that forges a GitHub workflow command, and one with an ESC sequence.
const SPEC = `apiVersion: gpuops.dev/v1alpha1
kind: Algorithm
metadata:
  name: evil
spec:
  image: registry.example.com/ml/x:1.0.0
  resources: {gpus: 1}
  "bad\\n::error file=README.md::forged": 1
  "red\\e[31mkey\\e]0;title\\a": 2
`;

/** No raw control character but the line feeds that end lines. */
// eslint-disable-next-line no-control-regex -- looking for raw control characters
const RAW_CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/;

let repo: string;
beforeAll(async () => {
  repo = await mkdtemp(path.join(tmpdir(), 'gpuops-escape-'));
  await mkdir(path.join(repo, 'algorithms'));
  await writeFile(path.join(repo, 'algorithms/evil.yaml'), SPEC);
});
afterAll(async () => {
  await rm(repo, { recursive: true, force: true });
});

describe('control characters never reach text output (issue 29 item 6)', { timeout: 90_000 }, () => {
  it('validate: each error stays one line, the newline and ESC shown as \\n and \\x1b', async () => {
    const r = await gpuops(repo, 'validate', '.');
    expect(r.code).toBe(1);
    expect(r.stdout).not.toMatch(RAW_CONTROL);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(3); // two errors and the summary: no forged line
    expect(lines.some((l) => l.startsWith('::'))).toBe(false);
    expect(lines.join('\n')).toContain('bad\\n::error file=README.md::forged');
    expect(lines.join('\n')).toContain('red\\x1b[31mkey\\x1b]0;title\\x07');
    expect(lines[2]).toBe('2 errors in 1 of 1 file; 0 valid algorithms');
  });

  it('validate --output github: one ::error per error, the ESC escaped too', async () => {
    const r = await gpuops(repo, 'validate', '.', '--output', 'github');
    expect(r.stdout).not.toMatch(RAW_CONTROL);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines.filter((l) => l.startsWith('::error ')).length).toBe(2);
    expect(
      lines.every((l) => l.startsWith('::error file=algorithms/evil.yaml,') || !l.startsWith('::')),
    ).toBe(true);
  });

  const error = {
    file: 'algorithms/evil.yaml',
    line: 8,
    column: 3,
    field: 'spec.bad\n::x',
    message: 'unknown `field` "\u001b[2J"',
  };

  it('the spec-error PR comment: one list item per error, code spans a backtick cannot close', () => {
    const comment = specErrorsComment('evil', [error]);
    expect(comment).not.toMatch(RAW_CONTROL);
    const items = comment.split('\n').filter((l) => l.startsWith('- '));
    expect(items).toEqual([
      '- `algorithms/evil.yaml:8:3` `spec.bad\\n::x`: `` unknown `field` "\\x1b[2J" ``',
    ]);
    expect(specErrorsComment('e', [{ ...error, field: 'a`b' }])).toContain('`` a`b ``');
  });

  it('formatSpecError and the prs table escape, and a clean line is unchanged', () => {
    expect(formatSpecError(error)).toBe(
      'algorithms/evil.yaml:8:3: spec.bad\\n::x: unknown `field` "\\x1b[2J"',
    );
    expect(formatSpecError({ ...error, field: 'spec.image', message: 'must be a string' })).toBe(
      'algorithms/evil.yaml:8:3: spec.image: must be a string',
    );
    const table = formatPullRequests([
      {
        cluster: 'c',
        kind: 'placement',
        subject: 'x',
        branch: 'gpuops/c/placement/x',
        number: 1,
        state: 'open',
        title: 'move\n\u001b[31mred',
        url: null,
        body: '',
        desiredHash: 'h',
        updatedAt: '2026-01-01T00:00:00Z',
      },
    ]);
    expect(table.trimEnd().split('\n')).toHaveLength(2);
    expect(table).toContain('move\\n\\x1b[31mred');
  });

  it.each([
    ['LineFeed', 'a\nb', 'a\\nb'],
    ['CarriageReturn', 'a\rb', 'a\\rb'],
    ['Tab', 'a\tb', 'a\\tb'],
    ['Nul', 'a\u0000b', 'a\\x00b'],
    ['Delete', 'a\u007fb', 'a\\x7fb'],
    ['C1Csi', 'a\u009b31mb', 'a\\x9b31mb'],
    ['BidiOverride', 'a\u202eb', 'a\\u202eb'],
    ['LineSeparator', 'a\u2028b', 'a\\u2028b'],
    ['Printable', 'ümlaut 🚀 ~', 'ümlaut 🚀 ~'],
  ])('escapeControl %s', (_n, text, want) => {
    expect(escapeControl(text)).toBe(want);
  });

  it('escapeControlKeepLines keeps line feeds and tabs, escapes CR and ESC', () => {
    expect(escapeControlKeepLines('a\n\tb\r\u001b[0m')).toBe('a\n\tb\\r\\x1b[0m');
  });
});
