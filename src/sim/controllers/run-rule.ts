/**
 * How long a simulated run-to-completion container runs and how it ends. The rule, first match
 * wins, for each container:
 *
 * 1. The pod annotation `sim.gpuops.dev/run-seconds: "SECONDS"` ({@link RUN_SECONDS_ANNOTATION};
 *    e.g. `"42.5"`). This is the form for specs people write: a real cluster ignores the
 *    annotation, where a real image would reject an unknown flag. gpuops copies an Algorithm's
 *    `metadata.annotations` onto its benchmark pods, so the examples set it there.
 * 2. An argument `--sim-duration=SECONDS` in `command` or `args` (tests only).
 * 3. `durations[image]` of the config, for the exact image.
 * 4. `durations[prefix]` for the longest key that the image starts with (`registry/ml/`).
 * 5. `defaultDurationSeconds` (60 s by default).
 *
 * A malformed annotation makes the container fail at once, as a malformed `--sim-*` argument does.
 *
 * The container exits 0 (reason `Completed`) unless it has `--sim-fail` (exit 1, reason `Error`)
 * or `--sim-fail=CODE`. With `--sim-termination-message` it writes the termination message
 * `{"durationSeconds":N}` with its run time; `--sim-termination-message=N` reports N instead (a
 * benchmark that trusts the message then sees N, not the timestamps). `--sim-oom` ends it with
 * exit code 137 and reason `OOMKilled` (the kernel's OOM killer). `--sim-waiting=REASON` keeps it
 * from ever starting: the container stays `waiting` with that reason (e.g. `ImagePullBackOff`,
 * `ErrImagePull`, `InvalidImageName`, `CreateContainerConfigError`) and the kubelet's message for
 * it, as a registry outage, a bad image name or a missing Secret would. A malformed `--sim-*`
 * argument makes the container fail at once with exit code 2 and a message naming the argument.
 */

/** Pod annotation with the simulated run time of its containers, in seconds (rule 1 above). */
export const RUN_SECONDS_ANNOTATION = 'sim.gpuops.dev/run-seconds';

/** What a container does when run. `durationSeconds` ≥ 0. */
export interface SimulatedRun {
  durationSeconds: number;
  exitCode: number;
  /** `state.terminated.reason`: `Completed`, `Error` or `OOMKilled`. */
  reason: 'Completed' | 'Error' | 'OOMKilled';
  /** `state.terminated.message`, when the container writes one. */
  terminationMessage?: string;
  /** Set when the container never starts: its `state.waiting` reason and message. */
  waiting?: { reason: string; message: string };
}

/** The kubelet's message for a waiting reason the simulator can produce. */
export function waitingMessage(reason: string, image: string): string {
  switch (reason) {
    case 'ImagePullBackOff':
      return `Back-off pulling image "${image}"`;
    case 'ErrImagePull':
      return `failed to pull and unpack image "${image}": failed to resolve reference "${image}": unexpected status from HEAD request: 503 Service Unavailable`;
    case 'InvalidImageName':
      return `Failed to apply default image tag "${image}": couldn't parse image name "${image}": invalid reference format`;
    case 'CreateContainerConfigError':
      return 'secret "benchmark-credentials" not found';
    default:
      return `simulated ${reason}`;
  }
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

/**
 * Applies the rule above to one container.
 * @param annotations the pod's `metadata.annotations`
 */
export function simulatedRun(
  container: ContainerLike,
  durations: Record<string, number>,
  defaultDurationSeconds: number,
  annotations: Record<string, string> | undefined = undefined,
): SimulatedRun {
  const argv = [...(container.command ?? []), ...(container.args ?? [])].map(String);
  let duration: number | undefined;
  let exitCode = 0;
  let message: string | undefined | true;
  let oom = false;
  let waiting: string | undefined;
  const bad = (arg: string): SimulatedRun => ({
    durationSeconds: 0,
    exitCode: 2,
    reason: 'Error',
    terminationMessage: `gpuops sim: invalid argument ${JSON.stringify(arg)}: expected --sim-duration=SECONDS, --sim-fail[=CODE], --sim-oom, --sim-waiting=REASON or --sim-termination-message[=SECONDS]`,
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
    } else if (flag === '--sim-oom' && value === undefined) {
      oom = true;
    } else if (flag === '--sim-waiting') {
      if (value === undefined || !/^[A-Za-z]+$/.test(value)) return bad(arg);
      waiting = value;
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
  const annotated = annotations?.[RUN_SECONDS_ANNOTATION];
  if (annotated !== undefined) {
    const s = parseSeconds(annotated.trim());
    if (s === undefined) {
      return {
        durationSeconds: 0,
        exitCode: 2,
        reason: 'Error',
        terminationMessage: `gpuops sim: invalid annotation ${RUN_SECONDS_ANNOTATION}: ${JSON.stringify(annotated)}: expected a number of seconds, e.g. "45"`,
      };
    }
    duration = s;
  }
  const durationSeconds =
    duration ?? durationForImage(container.image ?? '', durations) ?? defaultDurationSeconds;
  const run: SimulatedRun = oom
    ? { durationSeconds, exitCode: 137, reason: 'OOMKilled' }
    : { durationSeconds, exitCode, reason: exitCode === 0 ? 'Completed' : 'Error' };
  if (waiting) run.waiting = { reason: waiting, message: waitingMessage(waiting, container.image ?? '') };
  if (message === true) run.terminationMessage = JSON.stringify({ durationSeconds });
  else if (message !== undefined) run.terminationMessage = message;
  return run;
}
