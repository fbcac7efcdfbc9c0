#!/usr/bin/env node
// npm's `prepare` script: builds dist/ (`npm run build`) when the build's tools are installed.
// They are dev dependencies (typescript, tsx), so `npm ci --omit=dev` has none: the build is then
// skipped with a note and exit code 0 instead of failing the install. Such an install runs only
// with a dist/ built elsewhere (the Dockerfile builds with dev dependencies, then prunes them).
// Resolves from the current folder (npm runs `prepare` in the package root).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import process from 'node:process';

const require = createRequire(path.join(process.cwd(), 'package.json'));
const missing = ['typescript', 'tsx'].filter((name) => {
  try {
    require.resolve(`${name}/package.json`);
    return false;
  } catch {
    return true;
  }
});
if (missing.length > 0) {
  const dist = existsSync(path.join(process.cwd(), 'dist', 'cli', 'main.js'))
    ? 'the dist/ present is used as it is'
    : 'there is no dist/: build it with the dev dependencies (npm ci, then npm prune --omit=dev)';
  process.stderr.write(
    `gpuops prepare: build skipped, ${missing.length > 1 ? 'the dev dependencies' : 'the dev dependency'} ${missing.join(' and ')} ${missing.length > 1 ? 'are' : 'is'} not installed; ${dist}\n`,
  );
  process.exit(0);
}
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const r = spawnSync(npm, ['run', 'build'], { stdio: 'inherit' });
process.exit(r.status ?? 1);
