/** What one scaling decision does. `relabel`: unused nodes move into the pool (then scale up). */
export type ScalingAction = 'scale-up' | 'scale-down' | 'relabel' | 'hold';

/** Machine reasons of a scaling decision. */
export type ScalingReason =
  | 'AboveMax'
  | 'BelowMin'
  | 'WithinRange'
  | 'AtMaxReplicas'
  | 'AtMinReplicas'
  | 'NoCapacity'
  | 'RelabelUnusedNode'
  | 'InsufficientSamples'
  | 'NoData'
  | 'CooldownActive'
  | 'StabilizationWindow'
  | 'WouldFlap'
  | 'HPAOwnsReplicas'
  | 'NotPlaced';

/** One `scaling[]` entry of `plan`. `utilization` is percent, null without usable data. */
export interface ScalingDecision {
  algorithm: string;
  action: ScalingAction;
  replicas: { from: number; to: number };
  utilization: number | null;
  /** Unused nodes moved into the algorithm's pool (only with `relabel`). */
  nodes: string[];
  reason: ScalingReason;
  message: string;
}

/** One GPU utilisation sample of one pod, attributed (percent, 0..100; `at` ISO-8601). */
export interface PodSample {
  namespace: string;
  pod: string;
  /** Percent 0..100 averaged over the pod's GPUs. */
  utilization: number;
  at: string;
  /** GPU UUIDs the sample covers. */
  gpus: string[];
}
