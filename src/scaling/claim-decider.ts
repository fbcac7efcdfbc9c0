/**
 * The claim's windows as a `Decide` (pure; docs/standby.md): while a Ready standby of its set
 * waits for an algorithm, its decision runs under `claimPolicy`. Kept apart from `rules/claim.ts`,
 * which `decide-one.ts` imports, so no import circle goes through `decide-in-turn.ts`.
 */
import type { Decide } from './decide-in-turn.js';
import { claimPolicy, type StandbyOffer } from './rules/claim.js';

/**
 * `decide` with each algorithm decided under its `claimPolicy` (`rules/claim.ts`): `claimPolicy(policy,
 * input.loop, offerOf(name))`, `offerOf` giving what its standby set offers it at the pass (null:
 * no set serves it). The one way both `gpuops run`'s pass (`decideScaling`, the offers from the
 * snapshot's Ready standbys, `standbyOffers`) and the replay's standby fleet (its set's Ready pods)
 * apply the claim's windows. Without `input.loop` (`gpuops plan`, `reconcile --once`) the policy
 * as it is, as `claimPolicy` gives it. Never throws but where `decide` does.
 */
export function claimDecider(decide: Decide, offerOf: (algorithm: string) => StandbyOffer | null): Decide {
  return (input, policy, now) =>
    decide(input, claimPolicy(policy, input.loop, offerOf(input.algorithm.name)), now);
}
