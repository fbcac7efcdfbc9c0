#!/usr/bin/env node
// Runs the compiled CLI in dist/, which `npm ci` builds (the `prepare` script runs `npm run build`).
// GPUOPS_FROM_SOURCE=1 runs the TypeScript sources through tsx instead (development only: tsx is a
// devDependency, and compiling on every start costs seconds).
import { existsSync } from 'node:fs';
import process from 'node:process';
import { URL } from 'node:url';

if (process.env.GPUOPS_FROM_SOURCE === '1') {
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
