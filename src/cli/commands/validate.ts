import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Option, type Command } from 'commander';
import { loadRepo, formatSpecError, specFolderOf, isSpecFileName } from '../../definitions/index.js';
import type { LoadedRepo, SpecError } from '../../definitions/index.js';
import { escapeControl } from '../../util/index.js';
import { clusterProducts, withProductErrors, type NodesSource } from '../validate-products.js';
import { policyLine, policyUsed } from '../validate-policy.js';

/**
 * Registers `gpuops validate [DIR] [--output text|json|github] [--nodes FILE | --kubeconfig FILE]`:
 * checks every Algorithm and Policy file of the GitOps repo at DIR (default `.`). Prints one
 * `file:line:column: field: message` line per error and a summary, the file relative to the working
 * directory (so an editor or terminal opens it from where the command ran); `json` prints
 * `{"files": N, "errors": [...], "policy": {...}}` (docs/design.md, "Command-line contract") with
 * files relative to the repo root, `policy` the one the algorithms were checked against (the text
 * says it on a line before the summary when the repo has a policy file: `validate-policy.ts`); `github` prints GitHub Actions `::error` annotations (file paths relative to the
 * working directory, so they land on the pull request's diff) and the summary. With `--nodes` (a
 * `kubectl get nodes -o json` dump) or `--kubeconfig` (the live cluster, listed read-only) a
 * product of `spec.gpu.product` that no node carries is an error at its list item
 * (`validate-products.ts`). Exit 0 when all are valid, 1 on any error, 2 on usage errors (DIR not a
 * directory or not a GitOps repo root, a bad flag, a nodes dump that cannot be read, a cluster that
 * cannot be listed).
 */
export function register(program: Command): void {
  program
    .command('validate')
    .description('check every Algorithm and Policy file of a GitOps repo')
    .argument('[path]', 'the GitOps repo root, or one spec file', '.')
    .addOption(
      new Option('-o, --output <format>', 'output format')
        .choices(['text', 'json', 'github'])
        .default('text'),
    )
    .addOption(
      new Option(
        '--nodes <file>',
        'also check spec.gpu.product against the nodes of this dump (kubectl get nodes -o json)',
      ).conflicts('kubeconfig'),
    )
    .option(
      '--kubeconfig <file>',
      'also check spec.gpu.product against the nodes of this cluster (read only)',
    )
    .action(async (target: string, opts: ValidateOptions) => {
      let repo: Checked;
      let dir = target;
      try {
        const present = await clusterProducts(opts, new Date());
        const loaded = await loadTarget(target, present);
        repo = loaded.repo;
        dir = loaded.dir;
      } catch (err) {
        process.stderr.write(
          `gpuops validate: ${escapeControl(err instanceof Error ? err.message : String(err))}\n`,
        );
        process.exitCode = 2;
        return;
      }
      const { files, errors, algorithms } = repo;
      const warnings = repo.warnings ?? [];
      const policy = policyUsed(repo);
      if (opts.output === 'json') {
        process.stdout.write(`${JSON.stringify({ files, errors, warnings, policy }, null, 2)}\n`);
      } else {
        const print = (e: SpecError, level: 'error' | 'warning') =>
          opts.output === 'github'
            ? annotation(e, dir, level)
            : formatSpecError({
                ...e,
                file: fromCwd(dir, e.file),
                message: level === 'warning' ? `warning: ${e.message}` : e.message,
              });
        for (const e of errors) process.stdout.write(`${print(e, 'error')}\n`);
        for (const w of warnings) process.stdout.write(`${print(w, 'warning')}\n`);
        const badFiles = new Set(errors.map((e) => e.file)).size;
        const warned =
          warnings.length === 0 ? '' : `; ${warnings.length} ${plural(warnings.length, 'warning')}`;
        const summary =
          (files === 0
            ? 'no spec validated'
            : errors.length === 0
              ? `${files} ${plural(files, 'file')} valid, ${algorithms.length} ${plural(algorithms.length, 'algorithm')}`
              : `${errors.length} ${plural(errors.length, 'error')} in ${badFiles} of ${files} ${plural(files, 'file')}; ${algorithms.length} valid ${plural(algorithms.length, 'algorithm')}`) +
          warned;
        // Said whenever the repo has a policy file: with none, the shipped default is the only one.
        if (policy.files.length + policy.refused.length > 0) process.stdout.write(`${policyLine(policy)}\n`);
        process.stdout.write(`${summary}\n`);
      }
      process.exitCode = errors.length === 0 ? 0 : 1;
    });
}

/** What `validate` checked: the files, their errors, the valid algorithms and the policy used. */
type Checked = Pick<LoadedRepo, 'files' | 'errors' | 'warnings' | 'algorithms' | 'policy' | 'policyFiles'>;

/** The flags of `validate`. */
interface ValidateOptions extends NodesSource {
  output: 'text' | 'json' | 'github';
}

/**
 * `file` (relative to `dir`, or absolute) as the reader opens it from the working directory:
 * relative to it when inside it, absolute when not (no `../../` chains); `/`-separated, a trailing
 * `/` (a folder-level error) kept.
 */
function fromCwd(dir: string, file: string): string {
  const abs = path.resolve(dir, file);
  const rel = path.relative(process.cwd(), abs);
  const shown = rel === '' ? '.' : rel.startsWith('..') || path.isAbsolute(rel) ? abs : rel;
  return `${shown.split(path.sep).join('/')}${file.endsWith('/') ? '/' : ''}`;
}

/** A whole-input problem (an algorithms/ folder with no spec): reported at the folder, line 0. */
function inputError(file: string, message: string): SpecError {
  return { file, line: 0, column: 0, field: '', message };
}

/**
 * Where a spec file at absolute `abs` sits in a GitOps repo: the repo root and its repo-relative
 * path, when it is a file the loaders read there (`specFolderOf`: `algorithms/**`, the top of
 * `policies/`); null elsewhere (then it is validated on its own, as an algorithm).
 */
function repoHome(abs: string): { root: string; rel: string } | null {
  const parts = abs.split(path.sep);
  for (let i = parts.length - 2; i >= 1; i--) {
    if (parts[i] !== 'algorithms' && parts[i] !== 'policies') continue;
    const rel = parts.slice(i).join('/');
    if (specFolderOf(rel) !== null) return { root: parts.slice(0, i).join(path.sep) || path.sep, rel };
  }
  return null;
}

/** `loadTarget` for one file (see there). @throws Error when it is not named `*.yaml`/`*.yml` */
async function loadFile(
  target: string,
  present: ReadonlySet<string> | null,
): Promise<{ dir: string; repo: Checked }> {
  if (!isSpecFileName(path.basename(target)))
    throw new Error(
      `${target}: not a spec file: gpuops reads Algorithm and Policy files named *.yaml or *.yml; give one, or the repo root (the folder that holds algorithms/)`,
    );
  const abs = path.resolve(target);
  const home = repoHome(abs);
  let root: string;
  let temp: string | null = null;
  if (home) root = home.root;
  else {
    temp = mkdtempSync(path.join(tmpdir(), 'gpuops-validate-'));
    mkdirSync(path.join(temp, 'algorithms'));
    copyFileSync(abs, path.join(temp, 'algorithms', path.basename(abs)));
    root = temp;
  }
  try {
    // The file is a spec file (`specFolderOf`), never misplaced: only algorithms/ and policies/ are listed.
    const loaded = await loadRepo(root, undefined, { misplaced: false });
    const repo = present ? await withProductErrors(root, loaded, present) : loaded;
    const rel = home ? home.rel : `algorithms/${path.basename(abs)}`;
    const shown = temp ? target : rel;
    // The repo's policy files count for one spec too: it was checked against what they merge to,
    // so an error of theirs is this check's error (the file is not valid against the repo's policy).
    const policyErrors = repo.errors.filter((e) => e.file !== rel && e.file.startsWith('policies/'));
    const errors = [
      ...repo.errors.filter((e) => e.file === rel).map((e) => ({ ...e, file: shown })),
      ...policyErrors,
    ];
    const warnings = (repo.warnings ?? []).filter((e) => e.file === rel).map((e) => ({ ...e, file: shown }));
    const algorithms = repo.algorithms.filter((a) => a.source.file === rel);
    const files = 1 + new Set(policyErrors.map((e) => e.file)).size;
    const { policy, policyFiles } = repo;
    return {
      dir: temp ? process.cwd() : root,
      repo: {
        files,
        errors,
        algorithms,
        policy,
        ...(warnings.length > 0 ? { warnings } : {}),
        ...(policyFiles ? { policyFiles } : {}),
      },
    };
  } finally {
    if (temp) rmSync(temp, { recursive: true, force: true });
  }
}

/**
 * Loads what `validate` was pointed at. A directory must be a GitOps repo root: one without an
 * `algorithms/` folder is not one (a usage error with a hint, exit 2); one whose `algorithms/`
 * holds no spec would pass having checked nothing, so that is an error at the folder (exit 1). A
 * single file must be named as a spec file is (`*.yaml`, `*.yml`: the loaders read no other, so
 * `spec.md` or `spec.json` would check nothing and pass): another name is a usage error (exit 2),
 * like a folder that is no repo root: the command was pointed at something it does not check, which
 * says nothing of any spec. A spec file is validated on its own: inside a repo's `algorithms/` (at
 * any depth) or `policies/` folder against that repo's policies (whose errors are then its errors
 * too: it is not valid against a refused policy), elsewhere as an algorithm.
 * @throws Error when the path does not exist, is not a repo root or not a YAML file (usage errors)
 */
async function loadTarget(
  target: string,
  present: ReadonlySet<string> | null,
): Promise<{ dir: string; repo: Checked }> {
  if (!existsSync(target)) throw new Error(`${target}: no such file or directory`);
  if (statSync(target).isFile()) return loadFile(target, present);
  const algorithmsDir = path.join(target, 'algorithms');
  if (!existsSync(algorithmsDir) || !statSync(algorithmsDir).isDirectory()) {
    const hint =
      path.basename(path.resolve(target)) === 'algorithms'
        ? `did you mean the repo root? (gpuops validate ${path.dirname(target) || '.'})`
        : 'did you mean the repo root? (the folder that holds algorithms/ and policies/)';
    throw new Error(`${target}: no algorithms/ folder here: ${hint}`);
  }
  const loaded = await loadRepo(target);
  const repo = present ? await withProductErrors(target, loaded, present) : loaded;
  const specFiles = new Set(
    [...repo.errors.map((e) => e.file), ...repo.algorithms.map((a) => a.source.file)].filter((f) =>
      f.startsWith('algorithms/'),
    ),
  );
  if (specFiles.size === 0) {
    return {
      dir: target,
      repo: {
        ...repo,
        errors: [
          ...repo.errors,
          inputError('algorithms/', 'no Algorithm spec (*.yaml) in algorithms/: did you mean the repo root?'),
        ],
      },
    };
  }
  return { dir: target, repo };
}

function plural(n: number, word: string): string {
  return n === 1 ? word : `${word}s`;
}

/**
 * `%`, CR and LF escaped as GitHub workflow commands need them, after every other control
 * character was made visible ({@link escapeControl}: an ESC sequence never reaches the log).
 */
function escapeData(s: string): string {
  return escapeControl(s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A'));
}

/** Property values also escape `:` and `,`. */
function escapeProperty(s: string): string {
  return escapeData(s).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

/**
 * A GitHub Actions annotation (workflow command `::error file=…,line=…,col=…,title=…::msg`, or
 * `::warning …` for a warning), https://docs.github.com/en/actions/reference/workflows-and-actions/workflow-commands
 */
export function annotation(e: SpecError, dir: string, level: 'error' | 'warning' = 'error'): string {
  const file = fromCwd(dir, e.file);
  // A file- or folder-level error (line 0) has no position: the annotation goes on the file.
  const at: [string, number][] =
    e.line === 0
      ? []
      : [
          ['line', e.line],
          ['col', e.column],
        ];
  const props: [string, string | number][] = [
    ['file', file],
    ...at,
    ['title', e.field === '' ? 'document' : e.field],
  ];
  const list = props.map(([k, v]) => `${k}=${escapeProperty(String(v))}`).join(',');
  return `::${level} ${list}::${escapeData(e.message)}`;
}
