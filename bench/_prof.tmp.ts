import { generate } from '/work/main/bench/decide.bench.ts';
import { parseQueryResult } from '/work/main/src/metrics/query-result.ts';
import { attribute } from '/work/main/src/scaling/attribute.ts';
import { planScaling } from '/work/main/src/scaling/plan-scaling.ts';
const g = generate();
for (let r = 0; r < 3; r++) {
  let t = performance.now();
  const body = JSON.parse(g.answer);
  const t1 = performance.now();
  const series = parseQueryResult(body, { source: 'b', metric: 'DCGM_FI_DEV_GPU_UTIL' });
  const t2 = performance.now();
  attribute(series, g.snapshot.pods, g.policy, g.now);
  const t3 = performance.now();
  planScaling({ algorithms: g.algorithms, snapshot: g.snapshot, reading: { ok: true, series, errors: [] }, recent: g.recent, policy: g.policy, now: g.now });
  const t4 = performance.now();
  console.log({ json: t1 - t, parse: t2 - t1, attribute: t3 - t2, plan: t4 - t3 });
}
