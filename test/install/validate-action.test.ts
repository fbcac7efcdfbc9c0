/**
 * The shipped validate action (`.github/actions/validate/action.yml`), its steps run the way the
 * GitHub runner runs a composite action's: in a fresh checkout of gpuops (the files git tracks,
 * no node_modules, no dist/), each `run` step with bash (`-eo pipefail`), its
 * `${{ github.action_path }}` and `${{ inputs.* }}` expressions filled in, its `env` and
 * `working-directory`, `GITHUB_ACTION_PATH` and `GITHUB_WORKSPACE` set, and the workspace (the
 * GitOps repo) as the default folder. The `uses` steps (actions/setup-node) are not run: Node.js is
 * here; the Node.js line they ask for must be one gpuops supports. It used to install with
 * `npm ci --omit=dev`, which leaves no dist/ for `gpuops validate` to run.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const ACTION = '.github/actions/validate';

interface Step {
  name?: string;
  uses?: string;
  with?: Record<string, unknown>;
  run?: string;
  shell?: string;
  env?: Record<string, string>;
  'working-directory'?: string;
}
interface Action {
  inputs: Record<string, { default?: string }>;
  runs: { using: string; steps: Step[] };
}

const action = parse(readFileSync(path.join(ROOT, ACTION, 'action.yml'), 'utf8')) as Action;

let work: string;
afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
}, 300_000);

/**
 * A checkout of gpuops as actions/checkout makes it, nothing built: the files git tracks and the
 * new ones it does not ignore (what a commit of this working tree would hold).
 */
function checkout(to: string): void {
  const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: ROOT,
    encoding: 'utf8',
  })
    .split('\0')
    .filter((f) => f !== '' && existsSync(path.join(ROOT, f)));
  for (const f of files) {
    mkdirSync(path.dirname(path.join(to, f)), { recursive: true });
    cpSync(path.join(ROOT, f), path.join(to, f));
  }
}

/**
 * Runs the action's steps as the runner does (those named in `only`, when given); returns each run
 * step's exit code and output.
 */
function runAction(gpuops: string, workspace: string, inputs: Record<string, string> = {}, only?: string[]) {
  const actionPath = path.join(gpuops, ACTION);
  const fill = (text: string) =>
    text
      .replace(/\$\{\{\s*github\.action_path\s*\}\}/g, actionPath)
      .replace(
        /\$\{\{\s*inputs\.([\w-]+)\s*\}\}/g,
        (_m, name: string) => inputs[name] ?? action.inputs[name]?.default ?? '',
      );
  const out: { name: string; code: number | null; stdout: string; stderr: string }[] = [];
  for (const step of action.runs.steps) {
    if (step.run === undefined || (only && !only.includes(step.name ?? ''))) continue;
    expect(step.shell).toBe('bash');
    const env = Object.fromEntries(Object.entries(step.env ?? {}).map(([k, v]) => [k, fill(String(v))]));
    const r = spawnSync('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', fill(step.run)], {
      cwd: step['working-directory'] ? path.resolve(workspace, fill(step['working-directory'])) : workspace,
      encoding: 'utf8',
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        CI: 'true',
        GITHUB_ACTIONS: 'true',
        GITHUB_ACTION_PATH: actionPath,
        GITHUB_WORKSPACE: workspace,
        // The runner's temp folder: tsx keeps its cache there; inside the work folder, removed with it.
        TMPDIR: path.join(work, 'tmp'),
        ...env,
      },
    });
    out.push({ name: step.name ?? '', code: r.status, stdout: r.stdout, stderr: r.stderr });
    if (r.status !== 0) break;
  }
  return out;
}

describe('.github/actions/validate', { timeout: 900_000 }, () => {
  it('asks setup-node for a Node.js line gpuops supports (22 or 24)', () => {
    const setup = action.runs.steps.filter((s) => s.uses?.startsWith('actions/setup-node@'));
    expect(setup).toHaveLength(1);
    expect([22, 24]).toContain(Number(setup[0]!.with?.['node-version']));
  });

  it('installs gpuops from a fresh checkout and validates a GitOps repo: 0 when valid, 1 with an annotation per error', () => {
    work = mkdtempSync(path.join(tmpdir(), 'gpuops-action-'));
    mkdirSync(path.join(work, 'tmp'));
    const gpuops = path.join(work, 'gpuops');
    checkout(gpuops);
    const workspace = path.join(work, 'workspace');
    // The example repo less its spec with a mistake on purpose (algorithms/whisper-asr.yaml).
    cpSync(path.join(ROOT, 'examples/gitops-repo'), workspace, { recursive: true });
    rmSync(path.join(workspace, 'algorithms/whisper-asr.yaml'));
    const good = runAction(gpuops, workspace);
    expect(
      good.map((s) => [s.name, s.code]),
      good.map((s) => s.stderr.slice(-2000)).join('\n'),
    ).toEqual([
      ['Install gpuops', 0],
      ['gpuops validate', 0],
    ]);
    // The whole example repo one folder down (validate again; the install is the same checkout's):
    // the mistake is an annotation on its line, its path from the workspace (where the diff shows it).
    cpSync(path.join(ROOT, 'examples/gitops-repo'), path.join(workspace, 'deploy'), { recursive: true });
    const bad = runAction(gpuops, workspace, { directory: 'deploy' }, ['gpuops validate']);
    const validate = bad.find((s) => s.name === 'gpuops validate')!;
    expect(validate.code).toBe(1);
    expect(validate.stdout).toMatch(/^::error file=deploy\/algorithms\/whisper-asr\.yaml,line=13,/m);
  });
});
