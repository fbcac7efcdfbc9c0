import type { DecisionRecord, ScalingDecision } from './types.js';

/**
 * The record to store for a decision (`kind: scaling`), so the next pass's rules read it back;
 * `readyPods` only when the decision carries it.
 */
export function toDecisionRecord(decision: ScalingDecision, now: Date): DecisionRecord {
  return {
    kind: 'scaling',
    subject: decision.algorithm,
    action: decision.action,
    reason: decision.reason,
    message: decision.message,
    replicasFrom: decision.replicas.from,
    replicasTo: decision.replicas.to,
    utilization: decision.utilization,
    ...(decision.readyPods === undefined ? {} : { readyPods: decision.readyPods }),
    at: now.toISOString(),
  };
}
