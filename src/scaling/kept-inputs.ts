/**
 * Each algorithm's scaling input kept between a reconciler's passes (pure): `decideScaling` builds
 * an input from the algorithm's state in Git, its pods, the owner index, the reading's messages,
 * the policy, the snapshot's autoscalers, the loop and the placers' layout; in a steady pass all of
 * these are the same objects as the last pass's (the watch cache and the memos hand them out again)
 * and only the samples, flags and records are new. Then the last input is copied with those three,
 * and its other fields (refusal, current ReplicaSet, other autoscalers, placer, loop delays,
 * products) are the last pass's objects: not built again, and compared by identity by the
 * decision memo (`sameInput`'s `a === b` before a deep compare).
 *
 * What an input was built from is a list of values compared one by one with `===` (`sameAll`);
 * a source that is a new object each pass (a claimed pod list, an HPA's state) only
 * makes the input be built afresh. The key must name every value the input's fields but the
 * samples, flags and records are computed from: `kept-inputs.test.ts` changes each one and checks
 * that the input equals a fresh one.
 */
import type { Snapshot } from '../cluster/index.js';
import type { ScalingInput } from './types.js';

/** The snapshot's autoscalers (absent: not current). */
type Autoscalers = Snapshot['autoscalers'];

/** An input as `decideScaling` gives it to `decideInTurn` (capacity is added at its turn). */
type PartialInput = Omit<ScalingInput, 'poolNodes' | 'unusedNodes'>;

/** One algorithm's input of the last pass, and the values it was built from. */
interface KeptInput {
  from: readonly unknown[];
  input: PartialInput;
}

/** The inputs of the last pass by algorithm name, and this pass's as they are built. */
export interface InputMemo {
  last: Map<string, KeptInput>;
  next: Map<string, KeptInput>;
  /** The snapshot's autoscalers array an input was last built with (see {@link sameAutoscalers}). */
  autoscalers: Autoscalers;
  /** How many inputs the last pass copied from a kept one (the others it built). */
  kept: number;
}

/** An empty input memo. */
export function createInputMemo(): InputMemo {
  return { last: new Map(), next: new Map(), autoscalers: undefined, kept: 0 };
}

/**
 * Begins a pass: this pass's inputs start empty (an algorithm gone is forgotten). Returns the
 * snapshot's autoscalers as a key: the array kept from the last pass when it holds the same objects
 * in order (the watch cache maps its records into a new array each snapshot), else `autoscalers`.
 */
export function beginInputs(memo: InputMemo, autoscalers: Autoscalers): Autoscalers {
  memo.last = memo.next;
  memo.next = new Map();
  memo.kept = 0;
  memo.autoscalers = sameAutoscalers(memo.autoscalers, autoscalers) ? memo.autoscalers : autoscalers;
  return memo.autoscalers;
}

function sameAutoscalers(a: Autoscalers, b: Autoscalers): boolean {
  return a === b || (a !== undefined && b !== undefined && sameAll(a, b));
}

/**
 * The input of `name` built from `from`: the last pass's, copied with this pass's `samples`, `flags`
 * and `recent`, when it was built from the same values (`===`, in order); else `build()`. Either is
 * kept for the next pass.
 */
export function keptInput(
  memo: InputMemo,
  name: string,
  from: readonly unknown[],
  fresh: Pick<PartialInput, 'samples' | 'flags' | 'recent'>,
  build: () => PartialInput,
): PartialInput {
  const last = memo.last.get(name);
  let input: PartialInput;
  if (last !== undefined && sameAll(last.from, from)) {
    // One copy of the whole object (V8 clones its shape), then three fields it already has.
    input = { ...last.input };
    input.samples = fresh.samples;
    input.flags = fresh.flags;
    input.recent = fresh.recent;
    memo.kept++;
  } else input = build();
  memo.next.set(name, { from, input });
  return input;
}

/** The same values in the same places (`===`; `lookups.ts`'s `sameItems`, which imports this file's types). */
function sameAll(a: readonly unknown[], b: readonly unknown[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
