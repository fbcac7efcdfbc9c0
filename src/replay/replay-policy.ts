/**
 * The policy each replayed engine runs under (pure): the text of `policies/replay.yaml` the
 * simulated engines commit, and the same policy merged over the shipped default for the fast
 * model (`model-engine.ts`), so that the two decide under one policy.
 */
import { parse } from 'yaml';
import type { Policy } from '../definitions/index.js';
import { mergePolicy } from '../definitions/index.js';

/** The engines a replay policy is written for. */
export type PolicyEngine = 'hpa' | 'gpuops-patch' | 'gpuops-pr';

/** What the policy text depends on (see `ReplaySettings`). */
export interface PolicySettings {
  mergeDelaySeconds: number;
  hpaTarget: number;
  /** β of patch mode's headroom sizing, fixed before the run. */
  headroomFactor: number;
  policyText?: string;
}

/**
 * `policies/replay.yaml` for `engine`: the mode and engine under test, and
 * - patch mode: `sizing: headroom` at β = `headroomFactor` (one target up and down; the
 *   scale-down stabilisation window and cooldown stay the defaults, 300 s);
 * - PR mode: `sizing: load` at 60 %, its scale-down judged over 300 s + the merge delay (a PR
 *   is merged minutes after it is opened, so the replicas arrive long after the decision);
 * - both: `scaleUp.cooldownSeconds: 30` (one pass: replicas still starting count in the
 *   replicas, so a repeated scale-up is held by them, not by a cooldown);
 * - with `maxReplicas` (the replayed spec's): `limits.replicas` that, since the shipped cap (100
 *   replicas) refused the spec of the bundled trace's fleet (120) and left nothing to replay.
 */
export function replayPolicyText(engine: PolicyEngine, s: PolicySettings, maxReplicas?: number): string {
  return [
    '# Policy of the replay: the engine and mode under test; every other field is the default.',
    'apiVersion: gpuops.dev/v1alpha1',
    'kind: Policy',
    'metadata:',
    '  name: replay',
    'spec:',
    '  scaling:',
    `    mode: ${engine === 'gpuops-pr' ? 'pull-request' : 'patch'}`,
    `    engine: ${engine === 'hpa' ? 'hpa' : 'gpuops'}`,
    ...(engine === 'gpuops-patch'
      ? ['    sizing: headroom', `    headroomFactor: ${s.headroomFactor}`]
      : ['    sizing: load']),
    '    scaleUp: { cooldownSeconds: 30 }',
    ...(engine === 'gpuops-pr'
      ? [
          `    scaleDown: { stabilizationWindowSeconds: ${300 + s.mergeDelaySeconds} }`,
          '    targetUtilization: 60',
        ]
      : []),
    `    hpa: { targetUtilization: ${s.hpaTarget} }`,
    ...(maxReplicas !== undefined ? ['  limits:', `    replicas: ${maxReplicas}`] : []),
    '',
  ].join('\n');
}

/**
 * The user's `--policy` text for `engine`: its fields win, but mode and engine stay the engine's
 * under test. Undefined without one.
 */
export function userPolicyText(engine: PolicyEngine, s: PolicySettings): string | undefined {
  if (s.policyText === undefined) return undefined;
  const mode = engine === 'gpuops-pr' ? 'pull-request' : 'patch';
  return s.policyText
    .replace(/^(\s+)mode:.*$/m, `$1mode: ${mode}`)
    .replace(/^(\s+)engine:.*$/m, `$1engine: ${engine === 'hpa' ? 'hpa' : 'gpuops'}`);
}

/**
 * The merged policy patch mode runs under at headroom factor `beta` (the default `base`, then
 * `replay.yaml`, then the user's policy), for the model; with `margin`, at that scale-down margin
 * (`scaling.headroomDownMargin`) too. @throws Error when a text is not YAML
 */
export function patchPolicy(base: Policy, s: PolicySettings, beta: number, margin?: number): Policy {
  const texts = [replayPolicyText('gpuops-patch', { ...s, headroomFactor: beta })];
  const user = userPolicyText('gpuops-patch', s);
  if (user !== undefined) texts.push(user);
  let p = base;
  for (const t of texts) p = mergePolicy(p, parse(t) as unknown);
  // The user's policy may set its own β (or margin); the sweep's wins for the point it stands for.
  const swept =
    margin === undefined ? { headroomFactor: beta } : { headroomFactor: beta, headroomDownMargin: margin };
  return mergePolicy(p, { spec: { scaling: swept } });
}
