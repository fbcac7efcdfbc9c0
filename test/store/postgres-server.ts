/**
 * The real PostgreSQL server the Store suite runs against.
 *
 * - `GPUOPS_TEST_POSTGRES_URL` set (`.ci/run` starts the server with `.ci/start-postgres.sh`):
 *   use it.
 * - Absent with `CI=true`: fail. The PostgreSQL half of the suite never skips silently in CI.
 * - Absent locally: start a private server through the same script and stop it afterwards,
 *   so `npm test` alone runs both backends.
 */
import { execFile, execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const script = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../.ci/start-postgres.sh');

export interface TestPostgres {
  url: string;
  stop(): Promise<void>;
}

export async function startTestPostgres(): Promise<TestPostgres> {
  const given = process.env.GPUOPS_TEST_POSTGRES_URL;
  if (given) return { url: given, stop: async () => undefined };
  if (process.env.CI === 'true') {
    throw new Error(
      'GPUOPS_TEST_POSTGRES_URL is not set under CI=true: .ci/run must start PostgreSQL with .ci/start-postgres.sh',
    );
  }
  const { stdout } = await run('bash', [script], { timeout: 60_000 });
  const vars = Object.fromEntries(
    [...stdout.matchAll(/^export (\w+)=(.*)$/gm)].map((m) => [m[1]!, m[2]!] as const),
  );
  const url = vars.GPUOPS_TEST_POSTGRES_URL;
  const dir = vars.GPUOPS_TEST_POSTGRES_DIR;
  if (!url || !dir) throw new Error(`start-postgres.sh printed no URL/DIR:\n${stdout}`);
  // Safety net: a worker that exits without afterAll still stops its server.
  const onExit = () => {
    try {
      execFileSync('bash', [script, '--stop', dir], { stdio: 'ignore' });
    } catch {
      /* already stopped */
    }
  };
  process.once('exit', onExit);
  return {
    url,
    stop: async () => {
      process.removeListener('exit', onExit);
      await run('bash', [script, '--stop', dir], { timeout: 60_000 });
    },
  };
}
