import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const VERSION = (JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')) as { version: string }).version;

/**
 * Runs `node bin/gpuops.js …` (the compiled dist/; or another `script`) with a module hook that prints every file
 * module loaded on stderr (`LOADED <url>`); returns exit code, stdout and the loaded modules.
 */
function start(
  args: string[],
  script = 'bin/gpuops.js',
): { status: number | null; stdout: string; loaded: string[] } {
  const hook = `data:text/javascript,${encodeURIComponent(
    `export async function resolve(s, c, next) { const r = await next(s, c); if (r.url.startsWith('file:')) process.stderr.write('LOADED ' + r.url + '\\n'); return r; }`,
  )}`;
  const register = `data:text/javascript,${encodeURIComponent(
    `import { register } from 'node:module'; register(${JSON.stringify(hook)});`,
  )}`;
  const r = spawnSync(process.execPath, ['--import', register, script, ...args], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  const loaded = r.stderr
    .split('\n')
    .filter((l) => l.startsWith('LOADED '))
    .map((l) => l.slice('LOADED '.length).replace(`file://${ROOT}`, ''));
  return { status: r.status, stdout: r.stdout, loaded };
}

describe('gpuops start', () => {
  it('answers --version and -V from package.json without loading any CLI module', () => {
    for (const flag of ['--version', '-V']) {
      const r = start([flag]);
      expect(r.status).toBe(0);
      expect(r.stdout).toBe(`${VERSION}\n`);
      expect(r.loaded).toEqual(['bin/gpuops.js']);
    }
  });

  it('prints the same version through commander (dist/cli/main.js started directly)', () => {
    const r = start(['--version'], 'dist/cli/main.js');
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(`${VERSION}\n`);
    expect(r.loaded).toContain('dist/cli/main.js');
  });

  it('validate loads neither ajv nor the adapters (Kubernetes client, octokit, pino, databases)', () => {
    const r = start(['validate', 'examples/gitops-repo']);
    expect(r.status).toBe(1); // the example repo holds one invalid spec on purpose
    expect(r.loaded).toContain('dist/definitions/schema/validators.generated.js');
    const heavy = r.loaded.filter((u) =>
      /node_modules\/(ajv\/dist\/(core|ajv|compile)|@kubernetes|octokit|@octokit|pino|better-sqlite3|pg\/|simple-git)/.test(
        u,
      ),
    );
    expect(heavy).toEqual([]);
  });
});
