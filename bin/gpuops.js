#!/usr/bin/env node
// Runs the compiled CLI in dist/, which `npm ci` builds (the `prepare` script runs `npm run build`).
// GPUOPS_FROM_SOURCE=1 runs the TypeScript sources through tsx instead (development only: tsx is a
// devDependency, and compiling on every start costs seconds).
import { existsSync, readFileSync } from 'node:fs';
import process from 'node:process';
import { URL } from 'node:url';

const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  // Answered from package.json before any module of the CLI loads (`gpuops --version` in a CI step
  // costs what `node` itself does). Same text and exit code as commander's `--version`.
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  process.stdout.write(`${pkg.version}\n`);
} else if (process.env.GPUOPS_FROM_SOURCE === '1') {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/cli/main.ts');
} else {
  const main = new URL('../dist/cli/main.js', import.meta.url);
  if (!existsSync(main)) {
    process.stderr.write(
      'gpuops: dist/ is missing: run `npm run build` (`npm ci` runs it through `prepare`)\n',
    );
    process.exit(1);
  }
  await import(main.href);
}
