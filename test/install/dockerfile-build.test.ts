/**
 * The controller image's build steps, run the way `docker build -f templates/install/Dockerfile .`
 * runs them, without a Docker engine: each stage in a clean folder that holds only what its COPY
 * lines copy (from the repository, the build context, or from an earlier stage), each RUN line
 * there with bash. The build stage must install and build (it failed when `bin/prepare.js`, the
 * `prepare` script, was not copied); the final stage must run the ENTRYPOINT with what it holds
 * (dist/, the pruned node_modules, package.json, templates/, policies/): `validate` on the example
 * GitOps repo. RUN lines that install the base image's system packages (`apt-get`) are not run:
 * git, the one they add, is on this machine.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const DOCKERFILE = path.join(ROOT, 'templates/install/Dockerfile');

/** One instruction: its keyword and the rest of the line (continuations joined). */
interface Instruction {
  op: string;
  args: string;
  line: number;
}

/** One stage: `FROM image [AS name]` and its instructions. */
interface Stage {
  image: string;
  name: string | null;
  steps: Instruction[];
}

/** The Dockerfile's stages (comments dropped, `\` continuations joined). */
function parseDockerfile(text: string): Stage[] {
  const stages: Stage[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    let line = lines[i]!;
    const at = i + 1;
    while (line.endsWith('\\') && i + 1 < lines.length) line = `${line.slice(0, -1)} ${lines[++i]!.trim()}`;
    if (line.trim() === '' || line.trim().startsWith('#')) continue;
    const m = /^(\w+)\s+(.*)$/.exec(line.trim());
    if (!m) throw new Error(`Dockerfile:${at}: not an instruction: ${line}`);
    const op = m[1]!.toUpperCase();
    if (op === 'FROM') {
      const f = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(m[2]!)!;
      stages.push({ image: f[1]!, name: f[2] ?? null, steps: [] });
    } else stages.at(-1)!.steps.push({ op, args: m[2]!, line: at });
  }
  return stages;
}

let work: string;
afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
}, 300_000);

/** Copies `from` to `to` as COPY does: a folder's contents into `to`, a file into `to` (or into it when it ends in /). */
function copy(from: string, to: string): void {
  if (!existsSync(from)) throw new Error(`COPY: ${from} does not exist`);
  if (statSync(from).isDirectory()) return cpSync(from, to, { recursive: true });
  const target = to.endsWith('/') ? path.join(to, path.basename(from)) : to;
  mkdirSync(path.dirname(target), { recursive: true });
  cpSync(from, target);
}

/** Runs the stages in folders under `work` (one root per stage, `/` mapped to it); returns each stage's root and the ENV, WORKDIR and ENTRYPOINT of the last. */
function build(stages: Stage[]) {
  const roots = new Map<string, string>();
  const skipped: string[] = [];
  let last = { root: '', workdir: '/', env: {} as Record<string, string>, entrypoint: [] as string[] };
  stages.forEach((stage, n) => {
    const root = path.join(work, `stage-${n}`);
    mkdirSync(root, { recursive: true });
    let workdir = '/';
    const env: Record<string, string> = {};
    const inRoot = (base: string, p: string) =>
      path.join(base, p.startsWith('/') ? p : path.join(workdir, p));
    for (const step of stage.steps) {
      const args = step.args.split(/\s+/);
      if (step.op === 'WORKDIR')
        mkdirSync(inRoot(root, (workdir = path.posix.resolve(workdir, args[0]!))), { recursive: true });
      else if (step.op === 'ENV')
        for (const kv of args) env[kv.split('=')[0]!] = kv.split('=').slice(1).join('=');
      else if (step.op === 'COPY') {
        const from = args[0]!.startsWith('--from=')
          ? roots.get(args.shift()!.slice('--from='.length))
          : undefined;
        const dest = args.pop()!;
        for (const src of args) {
          const target = inRoot(root, dest) + (dest.endsWith('/') ? '/' : '');
          copy(from === undefined ? path.join(ROOT, src) : path.join(from, src), target);
        }
      } else if (step.op === 'RUN') {
        if (/^apt-get\b/.test(step.args)) {
          skipped.push(step.args);
          continue;
        }
        const r = spawnSync('bash', ['-c', step.args], {
          cwd: inRoot(root, '.'),
          encoding: 'utf8',
          // tsx keeps a cache in TMPDIR: inside the work folder, removed with it.
          env: { ...process.env, ...env, CI: 'true', TMPDIR: path.join(work, 'tmp') },
        });
        if (r.status !== 0)
          throw new Error(
            `Dockerfile:${step.line}: RUN ${step.args} exited ${r.status}:\n${r.stdout}\n${r.stderr}`,
          );
      } else if (step.op === 'ENTRYPOINT') last.entrypoint = JSON.parse(step.args) as string[];
    }
    if (stage.name) roots.set(stage.name, root);
    last = { ...last, root, workdir, env };
  });
  return { ...last, skipped };
}

describe('templates/install/Dockerfile', { timeout: 900_000 }, () => {
  const stages = parseDockerfile(readFileSync(DOCKERFILE, 'utf8'));

  it('builds on a maintained Node.js LTS line that package.json engines allow', () => {
    const engines = (
      JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } }
    ).engines.node;
    for (const s of stages) {
      const major = Number(/^node:(\d+)/.exec(s.image)?.[1]);
      expect([22, 24]).toContain(major);
      expect(engines).toMatch(new RegExp(`\\b${major}\\b`));
    }
  });

  it('its build stage runs in a folder holding only what it copies, and the image runs validate', () => {
    work = mkdtempSync(path.join(tmpdir(), 'gpuops-dockerfile-'));
    mkdirSync(path.join(work, 'tmp'));
    const image = build(stages);
    expect(image.skipped).toEqual([expect.stringMatching(/^apt-get update && apt-get install .*\bgit\b/)]);
    const app = path.join(image.root, image.workdir);
    expect(existsSync(path.join(app, 'dist/cli/main.js'))).toBe(true);
    // Pruned: no build tool in the image.
    expect(existsSync(path.join(app, 'node_modules/typescript'))).toBe(false);
    const repo = path.join(work, 'gitops-repo');
    cpSync(path.join(ROOT, 'examples/gitops-repo'), repo, { recursive: true });
    const home = path.join(work, 'home');
    const [cmd, ...entry] = image.entrypoint;
    expect(cmd).toBe('node');
    const run = (...args: string[]) =>
      spawnSync(process.execPath, [...entry, ...args], {
        cwd: app,
        encoding: 'utf8',
        env: { PATH: process.env.PATH, ...image.env, GPUOPS_CACHE_DIR: home, HOME: home },
      });
    const version = run('--version');
    expect(version.stdout.trim()).toBe(
      (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version,
    );
    // The example repo holds one spec with a mistake on purpose (its README says so).
    const validate = run('validate', repo);
    expect(validate.stderr).toBe('');
    expect(validate.stdout).toContain(
      'whisper-asr.yaml:13:3: spec.resources.gpus: required field "gpus" is missing',
    );
    expect(validate.stdout).toContain('2 errors in 1 of 4 files; 2 valid algorithms');
    expect(validate.status).toBe(1);
  });
});
