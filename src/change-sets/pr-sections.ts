/**
 * The sections of a pull-request body (pure): the access it grants, placement and scaling
 * evidence, node pools and files. Every table takes `maxRows`: a body cut to fit GitHub's limit
 * shows the first rows of each table and says how many more there are (`… and N more nodes`).
 */
import { describeProducts } from '../placement/index.js';
import type { PoolAssignment } from '../pools/index.js';
import type { CreatedObject } from './created-objects.js';
import { bandSection } from './pr-band.js';
import type { FillWait, PlacementEvidence, ScalingEvidence } from './pr-evidence.js';
import { count, inertCell, list, num, plural, poolMoves, standbySplitText, table } from './pr-text.js';
import type { RemovedMetadata } from './removed-metadata.js';
import type { PlannedFile } from './types.js';
import { byString, NVIDIA } from '../util/index.js';

/**
 * The access the pull request grants, stated before anything else: every Namespace and binding
 * it creates, and every binding whose grant it changes, with the role and the subjects.
 */
export function grantsSection(creates: readonly CreatedObject[], maxRows: number): string {
  return [
    `**This pull request ${list([...new Set(creates.map((c) => (c.action === 'create' ? 'creates' : 'changes')))])} access objects**: merging it lets Argo CD or Flux apply them.`,
    '',
    table(
      ['change', 'kind', 'name', 'namespace', 'role', 'subjects'],
      creates.map((c) => [c.action, c.kind, c.name, c.namespace, c.role, c.subjects.join(', ')]),
      maxRows,
      'objects',
    ),
  ].join('\n');
}

/**
 * What the pull request removes that gpuops did not add (labels, annotations a person put on a
 * file gpuops writes), stated before anything else; keys and values are inert (a person typed them).
 */
export function removesSection(removes: readonly RemovedMetadata[], maxRows: number): string {
  const shown = removes.slice(0, maxRows);
  return [
    `**This pull request removes ${plural(removes.length, 'label or annotation', 'labels or annotations')} gpuops did not add**: merging it takes them off the objects.`,
    '',
    '| file | object | field | key | value |',
    '| --- | --- | --- | --- | --- |',
    ...shown.map(
      (r) =>
        `| ${inertCell(r.path)} | ${inertCell(r.object)} | ${r.field} | ${inertCell(r.key)} | ${inertCell(r.value)} |`,
    ),
    ...(shown.length < removes.length ? ['', `… and ${count(removes.length - shown.length)} more`] : []),
  ].join('\n');
}

/**
 * The placement evidence of a `placement/<name>` pull request (Markdown): the rule (median
 * benchmark run time above `placement.longTaskThresholdSeconds` → `long-task`, else
 * `short-task`), the placement with its reason and message, the GPUs its replicas may ask for,
 * its rollout note, its model cache fill wait, its proposed band, its GPU product affinity, and
 * the measured benchmark runs (seconds; at most `maxRows` rows, then `… and N more runs`).
 */
export function placementSection(ev: PlacementEvidence, maxRows: number): string {
  const p = ev.placement;
  const out = [
    `### Placement of \`${p.algorithm}\``,
    '',
    `Runs longer than **${num(ev.longTaskThresholdSeconds)} s** (median) go to \`long-task\`, the others to \`short-task\`.`,
    '',
    table(
      ['algorithm', 'pool', 'median run time (s)', 'threshold (s)', 'reason', 'GPU product'],
      [
        [
          p.algorithm,
          p.pool,
          num(p.runTimeSeconds),
          num(ev.longTaskThresholdSeconds),
          p.reason,
          p.gpu ? describeProducts(p.gpu) : 'any',
        ],
      ],
    ),
    '',
    p.message,
  ];
  if (ev.asks) {
    const { minReplicas: min, maxReplicas: max, gpusPerPod: gpus } = ev.asks;
    out.push(
      '',
      `**It asks for ${min === max ? '' : `${min} to `}${plural(max, 'replica')} of ${plural(gpus, 'GPU')} each**: up to ${plural(max * gpus, 'GPU')} of \`${p.pool}\` (\`spec.scaling\`, \`spec.resources.gpus\`, within the policy's \`limits\`).`,
    );
  }
  if (ev.rollout) out.push('', `**Rollout** (\`${ev.rollout.reason}\`): ${ev.rollout.message}.`);
  if (ev.fillWait) out.push('', fillWaitLine(p.algorithm, ev.fillWait));
  if (ev.band) out.push('', bandSection(ev.band));
  if (p.gpu)
    out.push(
      '',
      `Its pods run only on nodes labelled \`${p.gpu.productLabel ?? NVIDIA.productLabel}\` ${p.gpu.products.map((x) => `\`${x}\``).join(' or ')} (a required node affinity beside the pool's nodeSelector); nodes moved into its pool are of ${p.gpu.products.length === 1 ? 'that product' : 'those products'}.`,
    );
  if (ev.runs.length > 0) {
    out.push(
      '',
      'Measured benchmark runs:',
      '',
      table(
        ['run', 'status', 'run time (s)', 'node', 'GPU product'],
        [...ev.runs]
          .sort((a, b) => a.run - b.run)
          .map((r) => [r.run, r.status, num(r.durationSeconds), r.node, r.gpuProduct ?? null]),
        maxRows,
        'runs',
      ),
    );
  }
  return out.join('\n');
}

const FILL_STATES: Record<FillWait['state'], string> = {
  NotRead: 'is in this pull request: merging it lets Argo CD or Flux create it, and it runs once',
  Absent: 'is not in the cluster yet (Argo CD or Flux has not applied it)',
  Running: 'is running',
  Failed: 'has failed',
  Unknown: 'could not be read this pass',
};

/**
 * The line of a Deployment held for its model cache fill: the Job, its state, and what Git's
 * Deployment does meanwhile (none yet, or the one in Git stays as it is).
 */
export function fillWaitLine(algorithm: string, w: FillWait): string {
  const meanwhile =
    w.deployment === 'none'
      ? `this pull request holds no Deployment of \`${algorithm}\` yet: the pass after the fill is Complete writes it`
      : `the Deployment of \`${algorithm}\` in Git stays as it is (its replicas go on serving) until the fill is Complete`;
  if (w.state === 'Failed') return fillFailedLine(w, meanwhile);
  const why = w.state === 'Unknown' && w.reason ? ` (${w.reason})` : '';
  return `**Waiting for the model cache fill**: Job \`${w.job}\` ${FILL_STATES[w.state]}${why}; ${meanwhile}.`;
}

/**
 * A failed fill holds the Deployment until a person acts: the Job controller never runs a Failed
 * Job again, and neither Argo CD nor Flux recreates a Job that exists and is unchanged in Git. A
 * deleted Job is missing from the cluster, so Flux applies it again at its next reconciliation and
 * Argo CD at its next sync (by itself only with automated sync and `selfHeal`).
 */
function fillFailedLine(w: FillWait, meanwhile: string): string {
  const why = w.reason ? ` (${w.reason})` : '';
  return [
    `**The model cache fill failed**: Job \`${w.job}\` ${FILL_STATES.Failed}${why}; its pods and events say more; ${meanwhile}.`,
    'To retry, change the fill step (its image or args name a new Job, which the applier creates once merged),',
    'or delete the failed Job: Argo CD and Flux do not run a Failed Job again while it exists unchanged in Git;',
    'once deleted, Flux creates it again at its next reconciliation and Argo CD at its next sync',
    '(by itself only with automated sync and `selfHeal`).',
  ].join(' ');
}

/**
 * The scaling evidence of a `scale/<name>` pull request (Markdown): the aggregate utilisation
 * against the band (percent), the replicas from → to within `minReplicas..maxReplicas`, the
 * decision's action, reason and message, how claimed standby pods split it, the unused nodes moved
 * into the pool (when the message does not name them), and each pod's GPU utilisation (percent,
 * by default the DCGM field `DCGM_FI_DEV_GPU_UTIL`; at most `maxRows` rows, sorted by
 * `namespace/pod`).
 */
export function scalingSection(ev: ScalingEvidence, maxRows: number): string {
  const d = ev.decision;
  const key = (s: { namespace: string; pod: string }) => `${s.namespace}/${s.pod}`;
  const pods = [...ev.pods].sort((a, b) => byString(key(a), key(b)));
  const out = [
    `### Scaling of \`${d.algorithm}\``,
    '',
    table(
      ['aggregate utilisation (%)', 'min (%)', 'max (%)', 'replicas', 'decision', 'reason'],
      [
        [
          num(d.utilization),
          num(ev.min),
          num(ev.max),
          `${d.replicas.from} → ${d.replicas.to} (limits ${ev.minReplicas}..${ev.maxReplicas})`,
          d.action,
          d.reason,
        ],
      ],
    ),
    '',
    d.message,
  ];
  const split = standbySplitText(d);
  if (split) out.push('', `Standby pods: ${split}.`);
  // Said once: the decision's message usually names the moved nodes already (no node: none to say).
  if (!d.nodes.every((n) => d.message.includes(n)))
    out.push('', `Unused nodes moved into the pool: ${d.nodes.map((n) => `\`${n}\``).join(', ')}.`);
  if (pods.length > 0) {
    out.push(
      '',
      'Per-pod GPU utilisation:',
      '',
      table(
        ['namespace', 'pod', 'GPU utilisation (%)', 'GPUs'],
        pods.map((s) => [s.namespace, s.pod, num(s.utilization), s.gpus.length]),
        maxRows,
        'pods',
      ),
    );
  }
  return out.join('\n');
}

/**
 * The `pools` pull request's node table (Markdown): every node whose pool changes (from → to,
 * `none` for no pool) with its reason and message, why the new test nodes were chosen (the rule
 * of `assignPools`), and the GPU nodes left out of every pool with why, so every GPU node is
 * accounted for. Each table shows at most `maxRows` rows, then `… and N more nodes`.
 */
export function poolsSection(pools: readonly PoolAssignment[], maxRows: number): string {
  const m = poolMoves(pools);
  const out = ['### Node pools', ''];
  if (m.length === 0) out.push('No node changes pool.');
  else
    out.push(
      table(
        ['node', 'from', 'to', 'reason', 'why'],
        m.map((p) => [p.node, p.from ?? 'none', p.to ?? 'none', p.reason, p.message]),
        maxRows,
        'nodes',
      ),
    );
  const test = m.filter((p) => p.to === 'test').map((p) => `\`${p.node}\``);
  if (test.length > 0) {
    // Why this node: the rule of `assignPools`, not its message again (the table has that).
    const named = test.length > maxRows ? `${plural(test.length, 'node')}` : list(test);
    out.push(
      '',
      `${named} ${test.length === 1 ? 'becomes the test node' : 'become test nodes'}: test nodes are taken, in name order, from the GPU nodes that are Ready, schedulable, in no pool or \`unused\`, and run no workload gpuops does not manage (\`pools.test.size\` of them, or one per GPU product with \`pools.test.perGPUProduct\`).`,
    );
  }
  // GPU nodes in no pool, and why: the reader sees every GPU node accounted for.
  const left = pools
    .filter((p) => p.to === null && p.from === null && p.reason !== 'NoGPU')
    .sort((a, b) => byString(a.node, b.node));
  if (left.length > 0) {
    out.push(
      '',
      `GPU nodes left out of every pool (${count(left.length)}):`,
      '',
      table(
        ['node', 'reason', 'why'],
        left.map((p) => [p.node, p.reason, p.message]),
        maxRows,
        'nodes',
      ),
    );
  }
  return out.join('\n');
}

/**
 * The files the pull request changes against its base branch (Markdown), sorted by path, each
 * with its change (`create`, `update` or `delete`); at most `maxRows` rows, then `… and N more files`.
 */
export function filesSection(files: readonly PlannedFile[], maxRows: number): string {
  return [
    '### Files',
    '',
    files.length === 0
      ? 'No file differs from the base branch.'
      : table(
          ['file', 'change'],
          [...files].sort((a, b) => byString(a.path, b.path)).map((f) => [`\`${f.path}\``, f.change]),
          maxRows,
          'files',
        ),
  ].join('\n');
}
