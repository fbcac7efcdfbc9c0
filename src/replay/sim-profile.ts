/** Debug aid of the simulated engines (`GPUOPS_REPLAY_PROFILE`): adapter calls slower than 20 ms, on stderr. */
import type { ReconcileDeps } from '../pass/index.js';

/** Debug aid: logs the real time of every adapter call slower than 20 ms. */
export function profiled(deps: ReconcileDeps): ReconcileDeps {
  const wrap = <T extends object>(name: string, o: T): T =>
    new Proxy(o, {
      get(target, prop, receiver) {
        const v = Reflect.get(target, prop, receiver) as unknown;
        if (typeof v !== 'function') return v;
        return (...args: unknown[]) => {
          const t = Date.now();
          const r = (v as (...a: unknown[]) => unknown).apply(target, args);
          if (r instanceof Promise)
            return r.finally(() => {
              const ms = Date.now() - t;
              if (ms > 20) process.stderr.write(`${name}.${String(prop)} ${ms} ms\n`);
            });
          return r;
        };
      },
    });
  return {
    ...deps,
    kube: wrap('kube', deps.kube),
    workingCopy: wrap('wc', deps.workingCopy),
    store: wrap('store', deps.store),
    host: wrap('host', deps.host),
    metrics: deps.metrics && wrap('metrics', deps.metrics),
    patcher: wrap('patcher', deps.patcher),
  };
}
