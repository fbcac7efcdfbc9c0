import type { GpuSharing } from '../cluster/index.js';
import type { Pool } from '../definitions/index.js';

/** Machine reasons of a pool decision. */
export type PoolReason =
  | 'TestPool'
  | 'Unused'
  | 'KeepPool'
  | 'InUse'
  | 'ReplacedTestNode'
  | 'SurplusTestNode'
  | 'NoGPU'
  | 'MIGOnly'
  | 'NotReady'
  | 'Cordoned'
  | 'Tainted'
  | 'Leaving'
  | 'SharedGPU'
  | 'ReturnedIdle'
  | 'NoAllocatableGPU'
  | 'ForeignWorkload'
  | 'MovedForScaleUp';

/** The desired pool of one node; `to: null` means the node gets no pool. One `pools[]` entry of `plan`. */
export interface PoolAssignment {
  node: string;
  from: Pool | null;
  to: Pool | null;
  reason: PoolReason;
  message: string;
  /**
   * Present when the node's GPUs are shared by time-slicing or MPS: it is never a test node, and
   * its capacity counts physical GPUs, not the advertised replicas.
   */
  shared?: GpuSharing;
  /** With `ReturnedIdle`: how long the node had held no GPU pod (seconds). */
  emptySeconds?: number;
}
