// @ts-check
/**
 * The purity rule: which files are pure, and what a pure file may not use.
 *
 * A pure module takes data and `now` and returns data plus a reason (DESIGN.md, "Architecture").
 * A folder that is pure throughout (`change-sets/`, `plan/`, `pools/`, …) is listed by folder, so a
 * file added there is held to the rule from its first line; in a folder of adapters (`working-copy/`,
 * `git-hosts/`) the pure helpers are listed file by file. Type-only imports are always allowed,
 * so a pure module can name an adapter's types without pulling in its code.
 * `test/lint/purity.test.ts` lints a probe file with every forbidden use and checks each is reported.
 */

/** Globs of pure source files (tests beside them are exempt). */
export const PURE_FILES = [
  'src/definitions/*types.ts',
  'src/definitions/rules/**/*.ts',
  'src/definitions/schema/algorithm.ts',
  'src/definitions/schema/policy.ts',
  'src/definitions/schema/compile.ts',
  'src/pools/**/*.ts',
  'src/placement/**/*.ts',
  'src/scaling/**/*.ts',
  'src/manifests/**/*.ts',
  'src/cluster/types.ts',
  'src/cluster/snapshot.ts',
  'src/cluster/taints.ts',
  'src/cluster/quantity.ts',
  'src/cluster/requests.ts',
  'src/cluster/mig.ts',
  'src/cluster/owners.ts',
  'src/metrics/types.ts',
  'src/metrics/query.ts',
  'src/metrics/query-result.ts',
  'src/metrics/dcgm-text.ts',
  'src/benchmark/classify.ts',
  'src/benchmark/disruption.ts',
  'src/benchmark/spec-hash.ts',
  'src/benchmark/summary.ts',
  'src/benchmark/measure.ts',
  'src/change-sets/**/*.ts',
  'src/working-copy/git-errors.ts',
  'src/git-hosts/ensure-pull-request.ts',
  'src/git-hosts/pr-host.ts',
  'src/git-hosts/host-retry.ts',
  'src/write-back/write-refusal.ts',
  'src/write-back/write-back-reason.ts',
  'src/working-copy/remote-url.ts',
  'src/working-copy/lock-holder.ts',
  'src/working-copy/unreadable-specs.ts',
  'src/plan/**/*.ts',
  'src/pass/world.ts',
  'src/pass/plan.ts',
  'src/pass/emptiness.ts',
  'src/controller/lease-decision.ts',
  'src/status/model.ts',
  'src/status/svg-chart.ts',
  'src/status/html.ts',
  'src/status/text.ts',
  'src/status/escape.ts',
  'src/replay/trace.ts',
  'src/replay/figures.ts',
  'src/replay/fleet.ts',
  'src/replay/report.ts',
  'src/sim/controllers/hpa-behavior.ts',
];

/** Node built-ins that do I/O, read process state, schedule work or load code. */
const NODE_IO = [
  'fs',
  'fs/promises',
  'child_process',
  'http',
  'https',
  'http2',
  'net',
  'tls',
  'dgram',
  'dns',
  'dns/promises',
  'os',
  'process',
  'worker_threads',
  'cluster',
  'readline',
  'timers',
  'timers/promises',
  'perf_hooks',
  'module',
  'vm',
  'v8',
  'inspector',
  'async_hooks',
];

/** Libraries that talk to the outside world. */
const ADAPTER_LIBRARIES = [
  '@kubernetes/client-node',
  'simple-git',
  'octokit',
  'pg',
  'libsql',
  'pino',
  'prom-client',
  'node-fetch',
];

/** The project's adapter modules (I/O, clock, environment), by path pattern. */
export const ADAPTER_MODULES = [
  '**/cluster/jobs*',
  '**/cluster/patch*',
  '**/cluster/kube-client*',
  '**/cluster/kubeconfig*',
  '**/cluster/lease*',
  '**/cluster/read-snapshot*',
  '**/definitions/load*',
  '**/definitions/index*',
  '**/benchmark/clock*',
  '**/benchmark/runner*',
  '**/benchmark/load-templates*',
  '**/benchmark/step*',
  '**/benchmark/wait*',
  '**/store/*',
  '!**/store/types*',
  '**/working-copy/**',
  '!**/working-copy/git-errors*',
  '!**/working-copy/remote-url*',
  '!**/working-copy/lock-holder*',
  '!**/working-copy/unreadable-specs*',
  '**/git-hosts/**',
  '!**/git-hosts/pr-host*',
  '!**/git-hosts/ensure-pull-request*',
  '!**/git-hosts/host-retry*',
  '**/write-back/**',
  '!**/write-back/write-refusal*',
  '!**/write-back/write-back-reason*',
  '**/retry/**',
  '**/disk/**',
  '**/metrics/prometheus*',
  '**/metrics/dcgm-scrape*',
  '**/metrics/metrics-file*',
  '**/controller/*',
  '**/pass/reconcile*',
  '**/pass/patch-mode*',
  '!**/controller/lease-decision*',
  '**/sim/**',
  '**/cli/**',
  '**/demo/**',
  '**/gitops-apply/**',
];

const NOW = 'Pure modules take `now` as an argument.';
const IO = 'Pure modules do no I/O: take the data as an argument.';

/** The rules a pure file obeys (flat-config `rules` object). */
export const PURITY_RULES = {
  'no-restricted-imports': 'off',
  '@typescript-eslint/no-restricted-imports': [
    'error',
    {
      paths: [
        ...NODE_IO.flatMap((name) => [name, `node:${name}`]).map((name) => ({
          name,
          message: IO,
          allowTypeImports: true,
        })),
        ...['crypto', 'node:crypto'].map((name) => ({
          name,
          importNames: ['randomUUID', 'randomBytes', 'randomInt', 'getRandomValues', 'webcrypto'],
          message: 'Pure modules are deterministic.',
          allowTypeImports: true,
        })),
        ...ADAPTER_LIBRARIES.map((name) => ({ name, message: IO, allowTypeImports: true })),
      ],
      patterns: [
        { group: ADAPTER_MODULES, message: 'Pure modules never import adapters.', allowTypeImports: true },
      ],
    },
  ],
  'no-restricted-globals': [
    'error',
    ...['process', 'globalThis', 'global', 'window', 'self'].map((name) => ({
      name,
      message: 'Pure modules take settings as arguments.',
    })),
    ...['fetch', 'XMLHttpRequest', 'WebSocket', 'require'].map((name) => ({ name, message: IO })),
    ...['eval', 'Function'].map((name) => ({ name, message: 'Pure modules never load code at run time.' })),
    ...['setTimeout', 'setInterval', 'setImmediate', 'queueMicrotask'].map((name) => ({
      name,
      message: 'Pure modules never wait or schedule: the pass does.',
    })),
    { name: 'performance', message: NOW },
    { name: 'crypto', message: 'Pure modules are deterministic.' },
  ],
  'no-restricted-syntax': [
    'error',
    { selector: 'ImportExpression', message: 'Pure modules never load code at run time.' },
    { selector: "NewExpression[callee.name='Date'][arguments.length=0]", message: NOW },
    { selector: "CallExpression[callee.name='Date']", message: NOW },
    { selector: "MemberExpression[object.name='Date'][property.name='now']", message: NOW },
    { selector: "MemberExpression[property.name='randomUUID']", message: 'Pure modules are deterministic.' },
    {
      selector: "MemberExpression[object.name='Math'][property.name='random']",
      message: 'Pure modules are deterministic.',
    },
  ],
};
