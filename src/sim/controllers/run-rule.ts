/**
 * How long a simulated run-to-completion container runs and how it ends. The rule, first match
 * wins, for each container:
 *
 * 1. An argument `--sim-duration=SECONDS` in `command` or `args` (e.g. `--sim-duration=42.5`).
 * 2. `durations[image]` of the config, for the exact image.
 * 3. `durations[prefix]` for the longest key that the image starts with (`registry/ml/`).
 * 4. `defaultDurationSeconds` (60 s by default).
 *
 * The container exits 0 (reason `Completed`) unless it has `--sim-fail` (exit 1, reason `Error`)
 * or `--sim-fail=CODE`. With `--sim-termination-message` it writes the termination message
 * `{"durationSeconds":N}` with its run time; `--sim-termination-message=N` reports N instead (a
 * benchmark that trusts the message then sees N, not the timestamps). A malformed `--sim-*`
 * argument makes the container fail at once with exit code 2 and a message naming the argument.
 */

/** What a container does when run. `durationSeconds` ≥ 0. */
export interface SimulatedRun {
  durationSeconds: number;
  exitCode: number;
  /** `state.terminated.reason`: `Completed` or `Error`. */
  reason: 'Completed' | 'Error';
  /** `state.terminated.message`, when the container writes one. */
  terminationMessage?: string;
}

interface ContainerLike {
  image?: string;
  command?: unknown[];
  args?: unknown[];
}

function parseSeconds(text: string): number | undefined {
  if (!/^\d+(\.\d+)?$/.test(text)) return undefined;
  return Number(text);
}

/** Run time by image from the config: exact image, else longest matching prefix, else undefined. */
export function durationForImage(image: string, durations: Record<string, number>): number | undefined {
  if (Object.prototype.hasOwnProperty.call(durations, image)) return durations[image];
  let best: string | undefined;
  for (const key of Object.keys(durations)) {
    if (image.startsWith(key) && (best === undefined || key.length > best.length)) best = key;
  }
  return best === undefined ? undefined : durations[best];
}

/** Applies the rule above to one container. */
export function simulatedRun(
  container: ContainerLike,
  durations: Record<string, number>,
  defaultDurationSeconds: number,
): SimulatedRun {
  const argv = [...(container.command ?? []), ...(container.args ?? [])].map(String);
  let duration: number | undefined;
  let exitCode = 0;
  let message: string | undefined | true;
  const bad = (arg: string): SimulatedRun => ({
    durationSeconds: 0,
    exitCode: 2,
    reason: 'Error',
    terminationMessage: `gpuops sim: invalid argument ${JSON.stringify(arg)}: expected --sim-duration=SECONDS, --sim-fail[=CODE] or --sim-termination-message[=SECONDS]`,
  });
  for (const arg of argv) {
    if (!arg.startsWith('--sim-')) continue;
    const [flag, value] = arg.includes('=')
      ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)]
      : [arg, undefined];
    if (flag === '--sim-duration') {
      const s = value === undefined ? undefined : parseSeconds(value);
      if (s === undefined) return bad(arg);
      duration = s;
    } else if (flag === '--sim-fail') {
      const code = value === undefined ? 1 : Number(value);
      if (!Number.isInteger(code) || code < 1 || code > 255) return bad(arg);
      exitCode = code;
    } else if (flag === '--sim-termination-message') {
      if (value === undefined) message = true;
      else {
        const s = parseSeconds(value);
        if (s === undefined) return bad(arg);
        message = JSON.stringify({ durationSeconds: s });
      }
    } else {
      return bad(arg);
    }
  }
  const durationSeconds =
    duration ?? durationForImage(container.image ?? '', durations) ?? defaultDurationSeconds;
  const run: SimulatedRun = { durationSeconds, exitCode, reason: exitCode === 0 ? 'Completed' : 'Error' };
  if (message === true) run.terminationMessage = JSON.stringify({ durationSeconds });
  else if (message !== undefined) run.terminationMessage = message;
  return run;
}
