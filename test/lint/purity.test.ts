import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

/**
 * The purity rule of `eslint/purity.js`, proven on a probe: every way out of a pure module that a
 * review found (issue 15) is one line here, and each must be reported on its own line. Uses that
 * stay allowed (type-only imports of adapters, hashing, parsing a given time) are not reported.
 */
const FORBIDDEN: ReadonlyArray<[string, string]> = [
  ['dynamic import of node:fs', "export const load = () => import('node:fs');"],
  ['dynamic import of an adapter', "export const jobs = () => import('../cluster/jobs.js');"],
  ['globalThis.process.env', 'export const env = globalThis.process.env;'],
  ['globalThis itself', 'export const g = globalThis;'],
  ['globalThis.fetch', "export const get2 = () => globalThis.fetch('http://x');"],
  ['process itself', 'export const p = process;'],
  ['node:process import', "import { env as processEnv } from 'node:process';"],
  ['process.env', 'export const home = process.env.HOME;'],
  ['fetch', "export const get = () => fetch('http://x');"],
  ['Date() call', 'export const d1 = Date();'],
  ['new Date()', 'export const d2 = new Date();'],
  ['new globalThis.Date()', 'export const d3 = new globalThis.Date();'],
  ['Date.now()', 'export const d4 = Date.now();'],
  ['Date.now as a value', 'export const clock = Date.now;'],
  ['new Date without parentheses', 'export const d5b = new Date;'],
  ['performance.now()', 'export const t = performance.now();'],
  ['crypto.randomUUID()', 'export const id = crypto.randomUUID();'],
  ['Math.random()', 'export const r = Math.random();'],
  ['setTimeout', 'export const s = setTimeout(() => 0, 1);'],
  ['setInterval', 'export const i = setInterval(() => 0, 1);'],
  ['setImmediate', 'export const im = setImmediate(() => 0);'],
  ['queueMicrotask', 'export const q = queueMicrotask(() => 0);'],
  ['perf_hooks import', "import { performance as perf } from 'node:perf_hooks';"],
  ['eval', "export const e = eval('1');"],
  ['Function constructor', "export const fn = new Function('return process');"],
  ['require', "export const m = require('x');"],
  ['createRequire', "import { createRequire } from 'node:module';"],
  ['module without prefix', "import { createRequire as cr } from 'module';"],
  ['fs import', "import { readFileSync } from 'node:fs';"],
  ['fs/promises without prefix', "import { readFile } from 'fs/promises';"],
  ['timers/promises', "import { setTimeout as sleep } from 'node:timers/promises';"],
  ['child_process', "import { spawn } from 'node:child_process';"],
  ['os', "import os from 'node:os';"],
  ['randomUUID import', "import { randomUUID } from 'node:crypto';"],
  ['client-node values', "import { KubeConfig } from '@kubernetes/client-node';"],
  ['simple-git', "import { simpleGit } from 'simple-git';"],
  ['pino', "import pino from 'pino';"],
  ['cluster/jobs adapter', "import { createKubeJobApi } from '../cluster/jobs.js';"],
  ['cluster/jobs adapter, re-exported', "export { createKubeJobApi } from '../cluster/jobs.js';"],
  ['cluster/patch adapter', "import { createClusterPatcher } from '../cluster/patch.js';"],
  ['definitions/load adapter', "import { loadDefaultPolicy } from '../definitions/load.js';"],
  ['benchmark/clock adapter', "import { systemClock } from '../benchmark/clock.js';"],
  ['store adapter', "import { openStore } from '../store/index.js';"],
  ['working copy adapter', "import { WorkingCopy } from '../working-copy/working-copy.js';"],
  ['working copy face', "import { WorkingCopy as Wc } from '../working-copy/index.js';"],
  ['Git host adapter', "import { GitHubHost } from '../git-hosts/github-host.js';"],
  ['write-back adapter', "import { writeBack } from '../write-back/write-back.js';"],
  ['controller adapter', "import { reconcileOnce } from '../pass/reconcile.js';"],
];

const ALLOWED: ReadonlyArray<[string, string]> = [
  ['type-only import of an adapter', "import type { JobApi } from '../cluster/jobs.js';"],
  ['type-only import of client-node', "import type { V1Node } from '@kubernetes/client-node';"],
  ['inline type import', "import { type Store } from '../store/types.js';"],
  ['hashing', "import { createHash } from 'node:crypto';"],
  ['pure sibling', "import { freeGpus } from './capacity.js';"],
  ['store types', "import type { DecisionRecord } from '../store/types.js';"],
  ['a pure helper of an adapter room', "import { classifyGitError } from '../working-copy/git-errors.js';"],
  ['a given time', 'export const d5 = new Date(0);'],
  ['parsing a time', "export const d6 = Date.parse('2026-01-01T00:00:00Z');"],
  ['ISO of a given time', 'export const iso = (now: Date) => now.toISOString();'],
];

async function lint(lines: readonly string[], file: string) {
  const eslint = new ESLint({ cwd: process.cwd() });
  const [result] = await eslint.lintText(lines.join('\n') + '\n', { filePath: file });
  return result!.messages;
}

describe('purity rule', () => {
  it('reports every forbidden use in a pure file, each on its own line', async () => {
    const messages = await lint(
      FORBIDDEN.map(([, code]) => code),
      'src/pools/purity-probe.ts',
    );
    const purity = messages.filter((m) => m.ruleId !== null && /restricted/.test(m.ruleId));
    const reported = new Set(purity.map((m) => m.line));
    const missed = FORBIDDEN.filter((_, i) => !reported.has(i + 1)).map(([name]) => name);
    expect(missed).toEqual([]);
  });

  it.each(ALLOWED)('allows %s', async (_name, code) => {
    const messages = await lint([code], 'src/pools/purity-probe.ts');
    expect(messages.filter((m) => m.ruleId !== null && /restricted/.test(m.ruleId))).toEqual([]);
  });

  it.each([
    'src/change-sets/branch-name.ts',
    'src/change-sets/change-set.ts',
    'src/change-sets/pr-body.ts',
    'src/change-sets/pr-sections.ts',
    'src/change-sets/index.ts',
    'src/git-hosts/ensure-pull-request.ts',
    'src/cluster/snapshot.ts',
    'src/plan/desired-state.ts',
    'src/definitions/rules/quantity.ts',
    'src/placement/place.ts',
    'src/scaling/decide-one.ts',
    'src/manifests/workloads.ts',
  ])('guards the pure file %s, also outside the pure folders', async (file) => {
    const messages = await lint(
      ["import { readFileSync } from 'node:fs';", 'export const t = Date.now();'],
      file,
    );
    const lines = messages.filter((m) => m.ruleId !== null && /restricted/.test(m.ruleId)).map((m) => m.line);
    expect(lines).toEqual([1, 2]);
  });

  it('leaves adapters alone (the working copy may spawn git)', async () => {
    const messages = await lint(
      ["import { spawn } from 'node:child_process';"],
      'src/working-copy/working-copy.ts',
    );
    expect(messages.filter((m) => m.ruleId !== null && /restricted/.test(m.ruleId))).toEqual([]);
  });
});
