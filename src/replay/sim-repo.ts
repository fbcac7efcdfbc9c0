/**
 * The repository a simulated engine starts from: the replayed service's Algorithm and the replay's
 * policy, written into a folder that becomes the engine's "origin" repo (`sim-engine.ts`).
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { makeDirs } from '../disk/index.js';
import { replayPolicyText, userPolicyText, type PolicyEngine } from './replay-policy.js';
import type { ReplaySettings } from './replay-settings.js';

/** The algorithm the replay scales. */
export const REPLAY_ALGORITHM = 'sd-serve';
/** Its namespace. */
export const REPLAY_NAMESPACE = 'algorithms';

/**
 * Writes the repository a simulated engine starts from into `dir`: the replayed service's spec
 * (`algorithms/sd-serve.yaml`, 1 GPU per pod, `1..maxReplicas`) and the replay's policy
 * (`policies/replay.yaml`, and the user's `--policy` as `user.yaml`).
 */
export function seedRepo(dir: string, engine: PolicyEngine, s: ReplaySettings, maxReplicas: number): void {
  makeDirs(path.join(dir, 'algorithms'));
  makeDirs(path.join(dir, 'policies'));
  writeFileSync(
    path.join(dir, 'algorithms', `${REPLAY_ALGORITHM}.yaml`),
    [
      '# The replayed service: one GPU per pod, placed on the short-task pool (no benchmark).',
      'apiVersion: gpuops.dev/v1alpha1',
      'kind: Algorithm',
      'metadata:',
      `  name: ${REPLAY_ALGORITHM}`,
      `  namespace: ${REPLAY_NAMESPACE}`,
      'spec:',
      '  image: registry.example.com/genai/stable-diffusion-serve:1.0',
      "  resources: { gpus: 1, cpu: '8', memory: 64Gi }",
      "  benchmark: { args: ['--bench'] }",
      '  scaling:',
      '    minReplicas: 1',
      `    maxReplicas: ${maxReplicas}`,
      `    utilization: { min: ${s.min}, max: ${s.max} }`,
      '  placement: { pool: short-task }',
      '',
    ].join('\n'),
  );
  writeFileSync(path.join(dir, 'policies', 'replay.yaml'), replayPolicyText(engine, s, maxReplicas));
  const user = userPolicyText(engine, s);
  if (user !== undefined) writeFileSync(path.join(dir, 'policies', 'user.yaml'), user);
}
