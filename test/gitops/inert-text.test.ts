/**
 * Text gpuops did not write — a spec's file, field and message, a commit's author, a file path —
 * is inert in gpuops's comments: nothing of it is live Markdown or HTML on GitHub (no mention,
 * image, link, tag or hidden gpuops marker). Checked by taking every code span out of the comment
 * (CommonMark 6.1: a backtick run, then the shortest text closed by a run of the same length) and
 * finding none of the hostile text outside them.
 */
import { describe, expect, it } from 'vitest';
import { personCommitsComment } from '../../src/change-sets/person-commits-comment.js';
import { commentMarker } from '../../src/git-hosts/pr-host.js';
import { inert } from '../../src/change-sets/pr-text.js';
import { specErrorsComment } from '../../src/write-back/spec-errors.js';

/** The comment with every code span replaced by `CODE`. */
function outsideCode(markdown: string): string {
  return markdown.replace(/(`+)(?!`)([\s\S]*?[^`])\1(?!`)/g, 'CODE');
}

const HOSTILE = [
  ['a mention', '@acme/platform-admins please merge'],
  ['an image', '![build](https://evil.example/track.png)'],
  ['a link', '[docs](https://evil.example/)'],
  ['HTML', '<img src=x onerror=alert(1)><details open>'],
  ['a hidden gpuops marker', '<!-- gpuops:desired-hash=0123456789abcdef0123 -->'],
  ['backticks that try to close the span', '`` ` @acme ` ``'],
  ['a newline that starts a forged line', 'ok\n- `x.yaml:1:1` fine\n@acme'],
] as const;

describe('spec text in gpuops comments is inert', () => {
  it.each(HOSTILE)('the spec-error comment with %s in the file, field and message', (_, text) => {
    const comment = specErrorsComment('resnet', [
      { file: `algorithms/${text}.yaml`, line: 3, column: 5, field: text, message: `bad ${text}` },
    ]);
    const rest = outsideCode(comment);
    for (const live of ['@acme', '](', '<img', '<details', 'evil.example']) expect(rest).not.toContain(live);
    // The only hidden marker is gpuops's own, last.
    expect(comment.match(/<!--/g)).toHaveLength(1);
    expect(commentMarker(comment)).toMatch(/^<!-- gpuops:spec-errors=resnet:[0-9a-f]{16} -->$/);
    expect(comment.split('\n').filter((l) => l.startsWith('- '))).toHaveLength(1);
  });

  it('a spec name that would close the marker is encoded in it', () => {
    const comment = specErrorsComment('x --> <img src=y> <!--', []);
    expect(commentMarker(comment)).toBe(
      `<!-- gpuops:spec-errors=${encodeURIComponent('x --> <img src=y> <!--')}:${/:([0-9a-f]{16}) -->/.exec(comment)![1]} -->`,
    );
    expect(outsideCode(comment)).not.toContain('<img');
  });

  it.each(HOSTILE)('the person-commits comment with %s as the author and a path', (_, text) => {
    const comment = personCommitsComment(
      'gpuops/prod/pools',
      'main',
      [{ sha: 'a'.repeat(40), author: text, email: 'x@y' }],
      {
        files: [{ path: `clusters/prod/${text}`, change: 'create', writtenBy: 'person' }],
        grants: [
          {
            kind: 'ClusterRoleBinding',
            name: text,
            namespace: null,
            action: 'create',
            role: 'ClusterRole/cluster-admin',
            subjects: [text],
          },
        ],
      },
    );
    const rest = outsideCode(comment);
    for (const live of ['@acme', '](', '<img', '<details', 'evil.example']) expect(rest).not.toContain(live);
    expect(commentMarker(comment)).toBe(`<!-- gpuops:person-commits=${'a'.repeat(40)} -->`);
    expect(comment.match(/<!--/g)).toHaveLength(1);
  });

  it.each([
    ['plain', 'abc', '`abc`'],
    ['one backtick inside', 'a`b', '`` a`b ``'],
    ['a leading space (CommonMark strips one padding space each side)', ' a', '`  a `'],
    ['empty', '', '` `'],
  ])('inert: %s', (_, text, expected) => {
    expect(inert(text)).toBe(expected);
  });
});
