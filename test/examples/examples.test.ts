/**
 * Issue 16 item 8: the example algorithms hold nothing only the simulator understands. Their
 * containers get only arguments a real image takes (no `--sim-*` flag); the simulated run time
 * is the annotation `sim.gpuops.dev/run-seconds`, which a real cluster ignores, and each example
 * says in its opening comment what it is.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { RUN_SECONDS_ANNOTATION } from '../../src/sim/controllers/run-rule.js';

const EXAMPLES = fileURLToPath(new URL('../../examples', import.meta.url));

function yamlFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && /\.ya?ml$/.test(e.name))
    .map((e) => path.join(e.parentPath, e.name))
    .sort();
}

interface Doc {
  kind?: string;
  metadata?: { name?: string; annotations?: Record<string, string> };
  spec?: { command?: string[]; args?: string[]; benchmark?: { args?: string[] } };
}

const algorithms = yamlFiles(EXAMPLES).flatMap((file) =>
  parseAllDocuments(readFileSync(file, 'utf8'))
    .map((d) => d.toJS() as Doc | null)
    .filter((d): d is Doc => d?.kind === 'Algorithm')
    .map((doc) => ({ file: path.relative(EXAMPLES, file), doc })),
);

describe('example algorithms', () => {
  it('there are examples to check', () => {
    expect(algorithms.map((a) => a.doc.metadata?.name)).toEqual([
      'bert-train',
      'resnet50-infer',
      'whisper-asr',
    ]);
  });

  it.each(algorithms.map((a) => [a.file, a] as const))(
    '%s passes no simulator flag to its container',
    (_f, a) => {
      const argv = [
        ...(a.doc.spec?.command ?? []),
        ...(a.doc.spec?.args ?? []),
        ...(a.doc.spec?.benchmark?.args ?? []),
      ];
      expect(argv.filter((x) => x.startsWith('--sim-'))).toEqual([]);
      expect(Number(a.doc.metadata?.annotations?.[RUN_SECONDS_ANNOTATION])).toBeGreaterThan(0);
    },
  );

  it.each(algorithms.map((a) => [a.file] as const))('%s opens with a comment saying what it is', (file) => {
    const text = readFileSync(path.join(EXAMPLES, file), 'utf8');
    expect(text).toMatch(/^# \S.{20,}\n/);
  });
});
