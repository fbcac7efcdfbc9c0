/**
 * One convention for a missing `--kubeconfig` file in every command that reaches the cluster:
 * exit 2 and one line on stderr naming the flag and the file (`run` answered exit 1 with a JSON
 * log line and a stack).
 */
import { describe, expect, it } from 'vitest';
import { runMain } from '../support/run-main.js';

const MISSING = '/nonexistent/gpuops-kubeconfig';

describe('a missing --kubeconfig file', () => {
  it.each([
    ['reconcile', ['reconcile', '--once', '--repo-url', 'file:///nonexistent/repo.git']],
    [
      'run',
      ['run', '--repo-url', 'file:///nonexistent/repo.git', '--health-port', '0', '--log-level', 'silent'],
    ],
    ['snapshot', ['snapshot']],
    ['plan (live)', ['plan', '--repo', '.']],
  ])('%s: exit 2, one line naming the flag and the file', async (_name, args) => {
    const r = await runMain(...args, '--kubeconfig', MISSING, '--database', 'sqlite::memory:');
    expect(r.code).toBe(2);
    expect(r.err).toBe(`gpuops: --kubeconfig: no file at ${MISSING}\n`);
  });
});
