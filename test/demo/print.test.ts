/** The demo's closing summary: how simulated time ran (no speed-up claim) and the status-page command last. */
import { describe, expect, it } from 'vitest';
import { formatSummary } from '../../src/demo/print.js';
import type { DemoResult } from '../../src/demo/scenario.js';

function result(over: Partial<DemoResult>): DemoResult {
  return {
    cluster: 'demo',
    dir: '/tmp/d',
    origin: '/tmp/d/origin.git',
    database: 'sqlite:/tmp/d/state.db',
    logFile: '/tmp/d/gpuops.log',
    nodes: [],
    real: false,
    testNode: null,
    movedNodes: [],
    returnedNodes: [],
    algorithms: [],
    deployments: [],
    services: [],
    prs: [],
    provider: 'git',
    mergeRequests: [],
    specErrors: [],
    mainFiles: [],
    passes: 9,
    lastPassWrites: [],
    simulatedSeconds: 1962,
    elapsedMs: 22_040,
    ...over,
  };
}

describe('formatSummary', () => {
  it.each([
    [1962, 22_040, '1,962 simulated seconds in 22.0 s'],
    [59.6, 900, '60 simulated seconds in 0.9 s'],
  ])('%d simulated s, %d ms → "%s"', (sim, ms, text) => {
    const out = formatSummary(result({ simulatedSeconds: sim, elapsedMs: ms }));
    expect(out).toContain(text);
    expect(out).not.toMatch(/faster|speed-?up|×/);
  });

  it('ends with the command that writes and opens the status page', () => {
    const lines = formatSummary(result({})).trimEnd().split('\n');
    expect(lines.at(-1)).toBe(
      '  npm run --silent gpuops -- status --cluster demo --database sqlite:/tmp/d/state.db --output html > /tmp/d/status.html && xdg-open /tmp/d/status.html',
    );
    expect(lines.join('\n')).toContain('prs --all --cluster demo');
  });

  it('lists the Services gpuops wrote with their ports and endpoints, and no table without one', () => {
    const out = formatSummary(
      result({
        services: [
          {
            namespace: 'algorithms',
            name: 'resnet50-infer',
            ports: ['http 8000→http', 'grpc 8001→grpc'],
            readyPods: 2,
          },
        ],
      }),
    );
    expect(out).toMatch(/^algorithms\/resnet50-infer +http 8000→http, grpc 8001→grpc +2 ready$/m);
    expect(formatSummary(result({}))).not.toContain('SERVICE');
  });

  it('names the cluster it ran on: the simulated one, or the real control plane', () => {
    const sim = formatSummary(result({}));
    expect(sim).toContain('GPU node pools (labels in the simulated cluster)');
    expect(sim).toContain('Look around (the simulated cluster has stopped;');
    const real = formatSummary(result({ real: true }));
    expect(real).toContain('1,962 story seconds in 22.0 s');
    expect(real).toContain('GPU node pools (labels in the cluster)');
    expect(real).toContain('ready pods in the cluster)');
    expect(real).not.toContain('simulated');
  });

  it('with --provider gitlab lists the merge requests with their !iid and link, and says where they live', () => {
    const out = formatSummary(
      result({
        provider: 'gitlab',
        mergeRequests: [
          {
            iid: 1,
            state: 'merged',
            branch: 'gpuops/demo/pools',
            title: 'gpuops(demo): move 9 nodes',
            url: 'http://127.0.0.1:4000/demo/gitops/-/merge_requests/1',
            labels: ['gpuops', 'gpuops/pools'],
          },
        ],
      }),
    );
    expect(out).toContain(
      "Merge requests (on the demo's GitLab stand-in, merged by the demo as a reviewer would)",
    );
    expect(out).toMatch(
      /!1 +merged +gpuops\/demo\/pools +http:\/\/127\.0\.0\.1:4000\/demo\/gitops\/-\/merge_requests\/1 +gpuops\(demo\): move 9 nodes/,
    );
    expect(out).not.toContain('Pull requests (branches on the local origin');
  });
});
