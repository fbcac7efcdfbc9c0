#!/usr/bin/env node
// Runs the TypeScript sources through tsx, so `npx gpuops` works right after `npm ci` with no build step.
// A container image runs the compiled `dist/cli/main.js` instead (see templates/install/Dockerfile).
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/main.ts');
