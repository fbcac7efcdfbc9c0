import { describe, expect, it } from 'vitest';
import { LocalClusterError, replaceRunning, type RunningProcess } from '../../src/local-cluster/process.js';

/** A stand-in that only carries a name: `replaceRunning` never calls a process. */
function proc(name: string): RunningProcess {
  return { name } as RunningProcess;
}

describe('replaceRunning keeps a restarted process in the list that stop ends', () => {
  it('replaces kube-apiserver in its own slot on every restart, not only the first', () => {
    const etcd = proc('etcd');
    const first = proc('kube-apiserver');
    const kcm = proc('kube-controller-manager');
    const list = [etcd, first, kcm];
    const second = proc('kube-apiserver');
    replaceRunning(list, first, second);
    const third = proc('kube-apiserver');
    // The second restart looks up the process it stops now, not the first one.
    replaceRunning(list, second, third);
    expect(list).toEqual([etcd, third, kcm]);
    expect(list[1]).toBe(third);
    expect(list).toHaveLength(3);
  });

  it('refuses a process that is not in the list instead of losing the new one', () => {
    const list = [proc('etcd')];
    expect(() => replaceRunning(list, proc('kube-apiserver'), proc('kube-apiserver'))).toThrow(
      LocalClusterError,
    );
    expect(list.map((p) => p.name)).toEqual(['etcd']);
  });
});
