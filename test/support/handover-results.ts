/**
 * What a fake `ClusterPatcher.releaseDeploymentToGit` answers in the tests of the replicas
 * hand-over (`src/pass/field-handover.ts`, `src/pass/handover-schedule.ts`), as the real patcher
 * words its results (`src/cluster/patch.ts`).
 */
import type { PatchResult } from '../../src/cluster/index.js';

/** How a fake hand-over of one object ends: handed over, nothing shared (any more), or a 403. */
export type HandOverAnswer = 'ok' | 'same' | 'denied';

/**
 * The result of handing `namespace/name`'s `spec.replicas` over to Git's applier: `ok` changed it
 * (one write), `same` found nothing shared (no write), `denied` was refused (HTTP 403, one try).
 */
export function deploymentHandOver(
  namespace: string,
  name: string,
  answer: HandOverAnswer = 'same',
): PatchResult {
  const denied = answer === 'denied';
  return {
    kind: 'Deployment',
    namespace,
    name,
    ok: !denied,
    changed: answer === 'ok',
    attempts: answer === 'same' ? 0 : 1,
    code: denied ? 403 : null,
    message: denied
      ? `Deployment ${namespace}/${name}: could not set it: forbidden`
      : `Deployment ${namespace}/${name}: ownership of spec.replicas handed to Git’s applier`,
  };
}
