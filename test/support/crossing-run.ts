/**
 * `gpuops run` as the crossing tests start it around a load step: the running controller as
 * `gpuops run` composes it (`startRunningController`), its log lines parsed into `logs` (printed
 * when the test fails), leader election on the Lease gpuops-system/gpuops-prod (15 s, retried every
 * second), the periodic pass every `intervalSeconds` and the crossing trigger every `watchSeconds`
 * (null: `--no-watch`). Returns once the first pass is done, so what follows is the step's doing.
 */
import { pino } from 'pino';
import { onTestFailed } from 'vitest';
import { startRunningController } from '../../src/compose/controller.js';
import { settingsWith, type Settings } from '../../src/config/settings.js';
import type { RunningController } from '../../src/controller/run-controller.js';
import { until } from './wait.js';

/** One started `gpuops run` and what it logged so far (one parsed object a line). */
export interface CrossingRun {
  controller: RunningController;
  logs: Record<string, unknown>[];
}

/** How many passes the run has finished, from its log. */
export const passesDone = (logs: readonly Record<string, unknown>[]): number =>
  logs.filter((l) => l.msg === 'reconcile pass done').length;

/**
 * Starts `gpuops run` with `settings` as identity `id`.
 * @throws Error when the first pass is not done within `firstPassMs`
 */
export async function startCrossingRun(o: {
  id: string;
  settings: Partial<Settings>;
  intervalSeconds: number;
  watchSeconds: number | null;
  firstPassMs: number;
}): Promise<CrossingRun> {
  const logs: Record<string, unknown>[] = [];
  onTestFailed(() => {
    console.log(logs.map((l) => JSON.stringify(l).slice(0, 400)).join('\n'));
  });
  const controller = await startRunningController({
    settings: settingsWith(o.settings),
    log: pino(
      { level: 'info' },
      { write: (line: string) => void logs.push(JSON.parse(line) as Record<string, unknown>) },
    ),
    identity: o.id,
    leaseNamespace: 'gpuops-system',
    leaseName: 'gpuops-prod',
    leaseDurationSeconds: 15,
    retryPeriodSeconds: 1,
    intervalSeconds: o.intervalSeconds,
    watchSeconds: o.watchSeconds,
    health: { host: '127.0.0.1', port: 0 },
    checkCluster: () => undefined,
  });
  await until('the first pass', () => passesDone(logs) === 1, o.firstPassMs, 50);
  return { controller, logs };
}
