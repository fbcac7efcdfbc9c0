import path from 'node:path';
import { Option, type Command } from 'commander';
import { loadRepo } from '../../spec/load.js';
import { formatSpecError } from '../../spec/rules/format.js';
import type { SpecError } from '../../spec/types.js';

/**
 * Registers `gpuops validate [DIR] [--output text|json|github]`: checks every Algorithm and Policy
 * file of the GitOps repo at DIR (default `.`). Prints one `file:line:column: field: message` line
 * per error and a summary; `json` prints `{"files": N, "errors": [...]}` (DESIGN.md); `github`
 * prints GitHub Actions `::error` annotations (file paths relative to the working directory, so
 * they land on the pull request's diff) and the summary. Exit 0 when all are valid, 1 on any error,
 * 2 on usage errors (DIR not a directory, a bad flag).
 */
export function register(program: Command): void {
  program
    .command('validate')
    .description('check every Algorithm and Policy file of a GitOps repo')
    .argument('[dir]', 'the GitOps repo', '.')
    .addOption(
      new Option('-o, --output <format>', 'output format')
        .choices(['text', 'json', 'github'])
        .default('text'),
    )
    .action(async (dir: string, opts: { output: 'text' | 'json' | 'github' }) => {
      let repo;
      try {
        repo = await loadRepo(dir);
      } catch (err) {
        process.stderr.write(`gpuops validate: ${err instanceof Error ? err.message : String(err)}\n`);
        process.exitCode = 2;
        return;
      }
      const { files, errors, algorithms } = repo;
      if (opts.output === 'json') {
        process.stdout.write(`${JSON.stringify({ files, errors }, null, 2)}\n`);
      } else {
        for (const e of errors) {
          process.stdout.write(`${opts.output === 'github' ? annotation(e, dir) : formatSpecError(e)}\n`);
        }
        const badFiles = new Set(errors.map((e) => e.file)).size;
        const summary =
          errors.length === 0
            ? `${files} ${plural(files, 'file')} valid, ${algorithms.length} ${plural(algorithms.length, 'algorithm')}`
            : `${errors.length} ${plural(errors.length, 'error')} in ${badFiles} of ${files} ${plural(files, 'file')}; ${algorithms.length} valid ${plural(algorithms.length, 'algorithm')}`;
        process.stdout.write(`${summary}\n`);
      }
      process.exitCode = errors.length === 0 ? 0 : 1;
    });
}

function plural(n: number, word: string): string {
  return n === 1 ? word : `${word}s`;
}

/** `%`, CR and LF escaped as GitHub workflow commands need them. */
function escapeData(s: string): string {
  return s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

/** Property values also escape `:` and `,`. */
function escapeProperty(s: string): string {
  return escapeData(s).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

/**
 * A GitHub Actions error annotation (workflow command `::error file=…,line=…,col=…,title=…::msg`),
 * https://docs.github.com/en/actions/reference/workflows-and-actions/workflow-commands
 */
export function annotation(e: SpecError, dir: string): string {
  const file = path.relative(process.cwd(), path.resolve(dir, e.file)).split(path.sep).join('/');
  const props: [string, string | number][] = [
    ['file', file],
    ['line', e.line],
    ['col', e.column],
    ['title', e.field === '' ? 'document' : e.field],
  ];
  const list = props.map(([k, v]) => `${k}=${escapeProperty(String(v))}`).join(',');
  return `::error ${list}::${escapeData(e.message)}`;
}
