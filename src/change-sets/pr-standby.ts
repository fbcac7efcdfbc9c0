/**
 * The "why" paragraph of a standby set's pull request (pure): the pool's spare held as standby
 * pods, and the figures that size it (docs/standby.md, `plan/standby-changes.ts`).
 */
import type { StandbyEvidence } from './pr-evidence.js';
import { plural } from './pr-text.js';

const round2 = (x: number) => Math.round(x * 100) / 100;

/**
 * `gpuops keeps the shared spare of pool short-task as standby pods of set llm …: ceil(1 × √7.2 /
 * (1 × 80 %)) = 4 pods`; for a removal (no evidence), why the file goes.
 */
export function standbyWhy(subject: string, e: StandbyEvidence | undefined): string {
  if (!e)
    return `The policy no longer declares standby set \`${subject}\`: gpuops proposes removing its Deployment (claimed pods have no owner and stay until given back or deleted).`;
  const intro = `gpuops keeps the shared spare of pool \`${e.pool}\` as warm standby pods of set \`${e.set}\` in \`${e.namespace}\`, which a scale-up of ${e.algorithms.map((a) => `\`${a}\``).join(', ')} claims in seconds (docs/standby.md).`;
  const size =
    e.loadGpus === null
      ? `The utilisation reading failed or came in part, so the set keeps at least the ${plural(e.replicas.from ?? 0, 'pod')} Git holds: ${plural(e.replicas.to, 'pod')}.`
      : `Size: ceil(β·√ΣL / (GPUs per pod × max)) = ceil(${e.beta} × √${round2(e.loadGpus)} / (${e.gpus} × ${e.max} %)) = ${plural(e.replicas.to, 'pod')}, ΣL the load of the algorithms it serves (GPUs).`;
  return `${intro}\n\n${size}`;
}
