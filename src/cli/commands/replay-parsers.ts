/**
 * The value parsers of `gpuops replay`'s flags (commander `argParser`s): each returns the parsed
 * value or throws commander's `InvalidArgumentError` (a usage error, exit 2) saying what it
 * expected and what it got.
 */
import { InvalidArgumentError } from 'commander';
import {
  FLEET_ENGINES,
  type FleetEngine,
  ENGINES,
  type Engine,
  groupLabels,
  parseScoredResources,
  type ScoredResource,
} from '../../replay/index.js';

/**
 * A number ≥ 0 (seconds, hours, a factor). A blank value is refused (`Number('')` is 0: an empty
 * `--from-hours ""` must not mean 0). @throws InvalidArgumentError otherwise
 */
export function nonNegative(value: string): number {
  const n = numberOf(value);
  if (!Number.isFinite(n) || n < 0) throw new InvalidArgumentError(`expected a number ≥ 0, got "${value}"`);
  return n;
}

/** `value` as a number; a blank value is NaN (`Number('')` is 0), so no bound accepts it. */
const numberOf = (value: string): number => (value.trim() === '' ? Number.NaN : Number(value));

/** A number > 0. @throws InvalidArgumentError otherwise, saying "> 0" whatever the value */
export function positive(value: string): number {
  const n = numberOf(value);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError(`expected a number > 0, got "${value}"`);
  return n;
}

/** A whole number > 0 (GPUs, services). @throws InvalidArgumentError otherwise */
export function wholePositive(value: string): number {
  const n = numberOf(value);
  if (!Number.isInteger(n) || n <= 0)
    throw new InvalidArgumentError(`expected a whole number > 0, got "${value}"`);
  return n;
}

/** `--nodes`: a whole number ≥ 0 or `auto`. @throws InvalidArgumentError otherwise */
export function nodeCount(value: string): number | 'auto' {
  if (value === 'auto') return 'auto';
  const n = numberOf(value);
  if (!Number.isInteger(n) || n < 0)
    throw new InvalidArgumentError(`expected a whole number ≥ 0 or "auto", got "${value}"`);
  return n;
}

/**
 * A headroom factor or scale-down margin, 0..10: the bounds the Policy schema gives
 * `scaling.headroomFactor` and `scaling.headroomDownMargin` (`definitions/schema/policy.ts`).
 * @throws InvalidArgumentError otherwise
 */
export function headroomFactor(value: string): number {
  const n = nonNegative(value);
  if (n > 10)
    throw new InvalidArgumentError(
      `expected a factor between 0 and 10 (as the Policy allows), got "${value}"`,
    );
  return n;
}

/** A percent, 0..100. @throws InvalidArgumentError otherwise */
export function percent(value: string): number {
  const n = nonNegative(value);
  if (n > 100) throw new InvalidArgumentError(`expected a percent between 0 and 100, got "${value}"`);
  return n;
}

/** An engine `--engines` names: one of one service's {@link ENGINES} or a fleet's {@link FLEET_ENGINES}. */
export type ReplayEngine = Engine | FleetEngine;

/** The engines of one service and of a fleet, as `--help` and the usage errors list them. */
export const ENGINES_TEXT = `one service: ${ENGINES.join(',')}; a fleet: ${FLEET_ENGINES.join(',')}`;

/**
 * `--engines`: comma-separated names, each an engine of one service or of a fleet (which of them
 * the replay can run is checked once it knows which it is). @throws InvalidArgumentError on a name of neither
 */
export function engineList(value: string): ReplayEngine[] {
  const known: readonly string[] = [...ENGINES, ...FLEET_ENGINES];
  const names = value.split(',').map((s) => s.trim());
  for (const n of names)
    if (!known.includes(n)) throw new InvalidArgumentError(`unknown engine "${n}" (${ENGINES_TEXT})`);
  return names as ReplayEngine[];
}

/** A comma-separated list, each item through `parse`. @throws InvalidArgumentError from `parse` */
export function numberList(parse: (v: string) => number): (value: string) => number[] {
  return (value) => {
    const xs = value.split(',').map((v) => parse(v.trim()));
    if (xs.length === 0) throw new InvalidArgumentError('expected a comma-separated list of numbers');
    return xs;
  };
}

/** `--group-by`: comma-separated label names (`groupLabels`). @throws InvalidArgumentError on a bad name */
export function labelList(value: string): string[] {
  try {
    return groupLabels(value);
  } catch (err) {
    throw new InvalidArgumentError((err as Error).message);
  }
}

/** `--scored-resources`: a comma-separated list of cpu, memory, nvidia.com/gpu. @throws InvalidArgumentError otherwise */
export function scoredResources(value: string): ScoredResource[] {
  try {
    return parseScoredResources(value);
  } catch (e) {
    throw new InvalidArgumentError((e as Error).message);
  }
}
