/**
 * The fleet replay `npm run replay` runs after the one-service replay (so one run judges every
 * engine on one service and on a fleet): the same trace and delays as four services sharing one
 * pool on a fixed fleet of nodes. Pure: argument lists in, argument lists out.
 */

/** The fleet `npm run replay` replays unless told otherwise: 4 circularly shifted services on 16 nodes. */
export const DEFAULT_FLEET = ['--services', '4', '--nodes', '16'] as const;

/** The second fleet `npm run replay` replays: 4 disjoint groups of the trace's pods on 16 nodes. */
export const DEFAULT_POD_GROUPS = ['--pod-groups', '4', '--nodes', '16'] as const;

/**
 * Flags of a one-service replay that mean the same for a fleet, each with its value: the trace, the
 * slice, the delays and thresholds, the policy, the fleet's hardware and the HPA's and gpuops's
 * parameters. The rest (`--engines`, `--work-dir`, `--merge-delay-seconds`, the frontier lists,
 * `--output`, `--report`) belong to the one-service engines and are not passed on.
 */
const SHARED_FLAGS: ReadonlySet<string> = new Set([
  '--trace',
  '--synthetic',
  '--hours',
  '--from-hours',
  '--startup-seconds',
  '--sample-delay-seconds',
  '--pass-interval-seconds',
  '--min',
  '--max',
  '--policy',
  '--gpus-per-node',
  '--hpa-target',
  '--headroom-factor',
  '--claim-seconds',
]);

/** Flags that already make the replay a fleet: then `npm run replay` runs that alone. */
const FLEET_FLAGS: ReadonlySet<string> = new Set(['--services', '--group-by', '--nodes', '--pod-groups']);

/** What `npm run replay` runs for `args`: the one-service replay's arguments and the fleet's, or null. */
export interface ReplayPlan {
  one: string[] | null;
  fleet: string[] | null;
  /** The fleet of disjoint pod groups (with the shifted copies' shared flags), or null. */
  podGroups: string[] | null;
}

/**
 * Splits `args` (as given to `npm run replay`, `--trace` already in) into the runs to make:
 * - with `--services`, `--group-by` or `--nodes`: that fleet alone (`one` null, `fleet` = `args`
 *   less `--no-fleet`);
 * - with `--no-fleet` (taken out): the one-service replay alone;
 * - with `--engines` (a subset of the one-service engines was asked for): that alone;
 * - otherwise all three: `args`, then the shared flags of `args` (`--flag value` or `--flag=value`)
 *   with {@link DEFAULT_FLEET} and `--report DIR` as `--report DIR/fleet`, then the same with
 *   {@link DEFAULT_POD_GROUPS} and `--report DIR/pod-groups`.
 * Flag values are never read as flags (`--trace --hours` keeps `--hours` as the trace's name).
 */
export function replayPlan(args: readonly string[]): ReplayPlan {
  const flags = flagsOf(args);
  const names = flags.map((f) => f.name);
  const one = args.filter((a) => a !== '--no-fleet');
  if (names.some((n) => FLEET_FLAGS.has(n))) return { one: null, fleet: one, podGroups: null };
  if (names.includes('--no-fleet') || names.includes('--engines'))
    return { one, fleet: null, podGroups: null };
  const shared = (report: string) => {
    const out: string[] = [];
    for (const { name, value } of flags) {
      if (value === undefined) continue;
      if (SHARED_FLAGS.has(name)) out.push(name, value);
      else if (name === '--report') out.push('--report', `${value.replace(/\/+$/, '')}/${report}`);
    }
    return out;
  };
  return {
    one,
    fleet: [...shared('fleet'), ...DEFAULT_FLEET],
    podGroups: [...shared('pod-groups'), ...DEFAULT_POD_GROUPS],
  };
}

/** Flags that take no value. */
const BARE_FLAGS: ReadonlySet<string> = new Set(['--no-fleet', '--event-driven', '--no-loops']);

/**
 * The flags of `args` in order, each with its value (`--name value` or `--name=value`; undefined
 * for a bare flag or a flag at the end). A flag's value is never read as a flag.
 */
function flagsOf(args: readonly string[]): { name: string; value: string | undefined }[] {
  const out: { name: string; value: string | undefined }[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (!a.startsWith('--')) continue;
    const eq = a.indexOf('=');
    if (eq > 0) out.push({ name: a.slice(0, eq), value: a.slice(eq + 1) });
    else if (BARE_FLAGS.has(a)) out.push({ name: a, value: undefined });
    else out.push({ name: a, value: args[++i] });
  }
  return out;
}
