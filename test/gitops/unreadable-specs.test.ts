/**
 * Which spec paths gpuops cannot read (issue 23 item 5): submodules and Git LFS pointers, and the
 * files beside them that it reads as before.
 */
import { describe, expect, it } from 'vitest';
import {
  isLfsPointer,
  separateUnreadable,
  unreadableErrors,
} from '../../src/working-copy/unreadable-specs.js';

const POINTER = 'version https://git-lfs.github.com/spec/v1\noid sha256:abc123\nsize 12\n';

describe('isLfsPointer', () => {
  it.each([
    ['a git-lfs v1 pointer', POINTER, true],
    ['with CRLF line ends', POINTER.replace(/\n/g, '\r\n'), true],
    ['the pre-2014 hawser pointer', POINTER.replace('git-lfs', 'hawser'), true],
    ['a YAML key named version', 'version: https://git-lfs.github.com/spec/v1\n', false],
    ['the pointer line later in a file', `kind: Algorithm\n${POINTER}`, false],
    ['an Algorithm spec', 'apiVersion: gpuops.dev/v1alpha1\nkind: Algorithm\n', false],
  ])('%s → %s', (_, text, expected) => {
    expect(isLfsPointer(text)).toBe(expected);
  });
});

describe('separateUnreadable', () => {
  it('keeps readable files, reports submodules and pointers sorted by path, as unnamed line-1 errors', () => {
    const spec = 'kind: Algorithm\n';
    const r = separateUnreadable(
      new Map([
        ['algorithms/a.yaml', spec],
        ['algorithms/big.yaml', POINTER],
      ]),
      [{ path: 'algorithms/team-vision', commit: '0123456789abcdef0123456789abcdef01234567' }],
    );
    expect([...r.files]).toEqual([['algorithms/a.yaml', spec]]);
    expect(r.unreadable.map((u) => [u.path, u.kind])).toEqual([
      ['algorithms/big.yaml', 'lfs-pointer'],
      ['algorithms/team-vision', 'submodule'],
    ]);
    expect(r.unreadable[1]!.message).toMatch(
      /^algorithms\/team-vision is a git submodule \(commit 0123456789ab\)/,
    );
    expect(unreadableErrors(r.unreadable)[0]).toEqual({
      file: 'algorithms/big.yaml',
      line: 1,
      column: 1,
      field: '',
      message: expect.stringContaining('Git LFS pointer (sha256:abc123)'),
    });
  });

  it('nothing unreadable: the files as they are', () => {
    const files = new Map([['algorithms/a.yaml', 'kind: Algorithm\n']]);
    expect(separateUnreadable(files, [])).toEqual({ files, unreadable: [] });
  });
});
