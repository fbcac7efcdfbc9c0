/**
 * The connection settings of gpuops (docs/design.md, "Command-line contract") and how they resolve
 * from flags, environment and `gpuops.yaml`. Below `cli/` so that the controller and the adapters
 * can name them without an import that runs back up to the command line.
 */
import { existsSync, readFileSync } from 'node:fs';
import { parse } from 'yaml';

/**
 * Connection settings shared by `reconcile`, `run`, `snapshot`, `benchmark` and live `plan`
 * (docs/design.md, "Command-line contract"). Each comes from, in order: the flag, the environment
 * variable `GPUOPS_<FLAG_IN_UPPER_SNAKE_CASE>`, the key of an optional `gpuops.yaml` in the
 * working directory (camelCase: `repoUrl`), the default.
 */
export interface Settings {
  repoUrl: string | undefined;
  branch: string;
  cluster: string;
  /** `forgejo` on the command line is taken as `gitea` (one API, one host). */
  provider: Provider;
  githubApiUrl: string;
  githubRepo: string | undefined;
  /**
   * Longest GitHub rate-limit wait one pass takes, seconds (default 60); a later reset ends that
   * write as `RateLimited until HH:MM:SS` and the next pass tries again.
   */
  githubRateLimitWaitSeconds?: string;
  /** From `GITHUB_TOKEN` only, never from a flag or file. */
  githubToken: string | undefined;
  /** GitLab instance (`https://gitlab.com`, or a self-managed one); `/api/v4` is added. */
  gitlabUrl?: string;
  /** The GitLab project: numeric id or full path `group/sub/name` (default: from `--repo-url`). */
  gitlabProject?: string;
  /** A file holding the GitLab token (a mounted Secret), read when `GITLAB_TOKEN` is unset. */
  gitlabTokenFile?: string;
  /** From `GITLAB_TOKEN`, else the file `gitlabTokenFile`; never from a flag or gpuops.yaml. */
  gitlabToken?: string;
  /** Gitea or Forgejo instance (default: the scheme and host of `--repo-url`); `/api/v1` is added. */
  giteaUrl?: string;
  /** `OWNER/NAME` on Gitea or Forgejo (default: from `--repo-url`). */
  giteaRepo?: string;
  /** A file holding the Gitea/Forgejo token, read when `GITEA_TOKEN` is unset. */
  giteaTokenFile?: string;
  /** From `GITEA_TOKEN`, else the file `giteaTokenFile`; never from a flag or gpuops.yaml. */
  giteaToken?: string;
  kubeconfig: string | undefined;
  prometheusUrl: string | undefined;
  /**
   * The Prometheus `job`(s) whose DCGM series count, an RE2 regex (default
   * `dcgm-exporter|nvidia-dcgm-exporter`, the GPU Operator's and the Helm chart's).
   */
  dcgmJob?: string;
  /**
   * The Prometheus `job`(s) whose AMD device-metrics-exporter series count, an RE2 regex (default
   * `.*metrics-exporter`: the AMD GPU operator names the exporter's Service
   * `<DeviceConfig>-metrics-exporter`, and the Prometheus Operator names a job after the Service).
   */
  amdMetricsJob?: string;
  dcgmUrl: string[];
  database: string;
  dryRun: boolean;
  /**
   * The settings no flag, environment variable or `gpuops.yaml` key gave, which took their
   * default (set by `resolveSettings`): a read-only command may then pick the one cluster its
   * database holds instead of `default`.
   */
  defaulted?: readonly (keyof Settings)[];
}

/**
 * The settings write-back needs (`openGitOps`): the repo, its base branch and cluster folder, and
 * where pull requests go. A subset of {@link Settings}, not a second shape of it.
 */
export type GitOpsSettings = Pick<
  Settings,
  'repoUrl' | 'branch' | 'cluster' | 'provider' | 'githubApiUrl' | 'githubRepo' | 'githubToken'
> &
  Partial<
    Pick<
      Settings,
      | 'githubRateLimitWaitSeconds'
      | 'gitlabUrl'
      | 'gitlabProject'
      | 'gitlabToken'
      | 'giteaUrl'
      | 'giteaRepo'
      | 'giteaToken'
    >
  >;

/** Where pull (merge) requests go. */
export type Provider = 'git' | 'github' | 'gitlab' | 'gitea';

/** The providers `--provider` takes (`forgejo` is `gitea`). */
export const PROVIDERS = ['git', 'github', 'gitlab', 'gitea', 'forgejo'] as const;

/** One connection setting: its flag, its key in `Settings` and gpuops.yaml, its default. */
export interface ConnectionOption {
  flag: string;
  key: keyof Settings;
  description: string;
  default?: string;
  variadic?: boolean;
}

/** Every connection setting, in the order `--help` lists them. */
export const CONNECTION_OPTIONS: readonly ConnectionOption[] = [
  { flag: 'repo-url', key: 'repoUrl', description: 'GitOps repo remote (file://, https://, ssh://, a path)' },
  { flag: 'branch', key: 'branch', description: 'base branch', default: 'main' },
  {
    flag: 'cluster',
    key: 'cluster',
    description: 'cluster name, the folder under clusters/',
    default: 'default',
  },
  {
    flag: 'provider',
    key: 'provider',
    description: 'where pull requests go: git | github | gitlab | gitea (Gitea and Forgejo)',
    default: 'git',
  },
  {
    flag: 'github-api-url',
    key: 'githubApiUrl',
    description: 'GitHub API URL',
    default: 'https://api.github.com',
  },
  { flag: 'github-repo', key: 'githubRepo', description: 'OWNER/NAME on GitHub (default: from --repo-url)' },
  {
    flag: 'github-rate-limit-wait-seconds',
    key: 'githubRateLimitWaitSeconds',
    description: 'longest GitHub rate-limit wait in a pass, seconds',
    default: '60',
  },
  {
    flag: 'gitlab-url',
    key: 'gitlabUrl',
    description: 'GitLab instance (self-managed or gitlab.com)',
    default: 'https://gitlab.com',
  },
  {
    flag: 'gitlab-project',
    key: 'gitlabProject',
    description: 'GitLab project id or full path group/name (default: from --repo-url)',
  },
  {
    flag: 'gitlab-token-file',
    key: 'gitlabTokenFile',
    description: 'file holding the GitLab token when GITLAB_TOKEN is unset',
  },
  {
    flag: 'gitea-url',
    key: 'giteaUrl',
    description: 'Gitea or Forgejo instance (default: the host of --repo-url)',
  },
  {
    flag: 'gitea-repo',
    key: 'giteaRepo',
    description: 'OWNER/NAME on Gitea or Forgejo (default: from --repo-url)',
  },
  {
    flag: 'gitea-token-file',
    key: 'giteaTokenFile',
    description: 'file holding the Gitea or Forgejo token when GITEA_TOKEN is unset',
  },
  {
    flag: 'kubeconfig',
    key: 'kubeconfig',
    description: 'kubeconfig file (default: KUBECONFIG, ~/.kube/config, in-cluster)',
  },
  { flag: 'prometheus-url', key: 'prometheusUrl', description: 'Prometheus server for GPU metrics' },
  {
    flag: 'dcgm-job',
    key: 'dcgmJob',
    description: "Prometheus job(s) of dcgm-exporter whose series count (a regex; '.+': any)",
    default: 'dcgm-exporter|nvidia-dcgm-exporter',
  },
  {
    flag: 'amd-metrics-job',
    key: 'amdMetricsJob',
    description: "Prometheus job(s) of AMD's device-metrics-exporter whose series count (a regex)",
    default: '.*metrics-exporter',
  },
  {
    flag: 'dcgm-url',
    key: 'dcgmUrl',
    description: 'dcgm-exporter endpoints to scrape (no Prometheus)',
    variadic: true,
  },
  {
    flag: 'database',
    key: 'database',
    description: 'sqlite:PATH or postgres://…',
    default: 'sqlite:.gpuops/state.db',
  },
];

/**
 * A wrong setting or flag: the CLI prints it and exits 2 (docs/design.md, "Command-line contract": 2
 * is a usage error).
 */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** DNS-1123 label (Kubernetes object names): the cluster name is a folder under `clusters/`. */
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

function envName(flag: string): string {
  return `GPUOPS_${flag.replace(/-/g, '_').toUpperCase()}`;
}

/**
 * The settings of `gpuops.yaml` (`{}` when the file is absent), keys checked against
 * {@link CONNECTION_OPTIONS}.
 * @throws UsageError naming the file when it is not valid YAML, not a mapping, or has an unknown key
 */
function readConfigFile(configFile: string): Record<string, unknown> {
  if (!existsSync(configFile)) return {};
  let parsed: unknown;
  try {
    parsed = parse(readFileSync(configFile, 'utf8'));
  } catch (err) {
    throw new UsageError(`${configFile}: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (parsed !== null && (typeof parsed !== 'object' || Array.isArray(parsed))) {
    throw new UsageError(`${configFile}: must be a mapping of setting names (repoUrl, cluster, …) to values`);
  }
  const file = (parsed ?? {}) as Record<string, unknown>;
  const known = CONNECTION_OPTIONS.map((o) => o.key as string);
  for (const key of Object.keys(file)) {
    if (!known.includes(key)) {
      throw new UsageError(
        `${configFile}: unknown setting ${JSON.stringify(key)}; known: ${known.join(', ')}`,
      );
    }
  }
  return file;
}

/**
 * Resolves settings from parsed flags, the environment and `gpuops.yaml`.
 * @param flags  commander's `opts()` of the command
 * @param env    usually `process.env`
 * @param configFile path of the optional config file
 * @throws UsageError naming the setting when `provider` is not one of {@link PROVIDERS}, `cluster`
 *   is not a DNS-1123 label, a host's token file cannot be read or holds no token, or gpuops.yaml
 *   is not valid YAML, not a mapping, or has an unknown key
 */
export function resolveSettings(
  flags: Record<string, unknown>,
  env: NodeJS.ProcessEnv = process.env,
  configFile = 'gpuops.yaml',
): Settings {
  const file = readConfigFile(configFile);
  const out: Record<string, unknown> = {};
  const defaulted: (keyof Settings)[] = [];
  for (const o of CONNECTION_OPTIONS) {
    const fromEnv = env[envName(o.flag)];
    let v: unknown =
      flags[o.key] ?? (fromEnv !== undefined && fromEnv !== '' ? fromEnv : undefined) ?? file[o.key];
    if (o.variadic) {
      v =
        v === undefined
          ? []
          : Array.isArray(v)
            ? v.map(String)
            : String(v)
                .split(/[\s,]+/)
                .filter(Boolean);
    } else if (v === undefined) {
      v = o.default;
      defaulted.push(o.key);
    } else {
      v = String(v);
    }
    out[o.key] = v;
  }
  if (!(PROVIDERS as readonly unknown[]).includes(out.provider)) {
    throw new UsageError(
      `--provider: must be one of ${PROVIDERS.join(', ')}, got ${JSON.stringify(out.provider)}`,
    );
  }
  if (out.provider === 'forgejo') out.provider = 'gitea';
  if (!DNS_LABEL.test(String(out.cluster))) {
    throw new UsageError(
      `--cluster: ${JSON.stringify(out.cluster)} must be a DNS-1123 label (lower-case letters, digits, '-', at most 63): it names the folder clusters/<cluster>/`,
    );
  }
  if (!/^\d+(\.\d+)?$/.test(String(out.githubRateLimitWaitSeconds))) {
    throw new UsageError(
      `--github-rate-limit-wait-seconds: must be a number of seconds ≥ 0, got ${JSON.stringify(out.githubRateLimitWaitSeconds)}`,
    );
  }
  for (const [flag, value] of [
    ['--dcgm-job', out.dcgmJob],
    ['--amd-metrics-job', out.amdMetricsJob],
  ] as const) {
    if (String(value).trim() === '' || /["\n\r]/.test(String(value)) || !isRegex(String(value))) {
      throw new UsageError(
        `${flag}: must be a regular expression of Prometheus job names without quotes, got ${JSON.stringify(value)}`,
      );
    }
  }
  out.kubeconfig = out.kubeconfig ?? env.KUBECONFIG;
  out.githubToken = env.GITHUB_TOKEN;
  out.gitlabToken = hostToken(env.GITLAB_TOKEN, out.gitlabTokenFile, '--gitlab-token-file');
  out.giteaToken = hostToken(env.GITEA_TOKEN, out.giteaTokenFile, '--gitea-token-file');
  out.dryRun = Boolean(flags.dryRun) || env.GPUOPS_DRY_RUN === 'true';
  out.defaulted = defaulted;
  return out as unknown as Settings;
}

function isRegex(text: string): boolean {
  try {
    new RegExp(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * A host's token: the environment variable when set, else the first line of `file` (a mounted
 * Secret; surrounding whitespace dropped), else undefined. Read once: a rotated file is taken at
 * the next start. @throws UsageError naming `flag` when the file cannot be read or is empty
 */
function hostToken(fromEnv: string | undefined, file: unknown, flag: string): string | undefined {
  if (fromEnv) return fromEnv;
  if (typeof file !== 'string' || file === '') return undefined;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new UsageError(
      `${flag}: cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`,
    );
  }
  const token = text.split('\n')[0]!.trim();
  if (token === '') throw new UsageError(`${flag}: ${file} holds no token`);
  return token;
}

/**
 * Settings with every default of {@link CONNECTION_OPTIONS} and the given values on top, without
 * reading flags, environment or `gpuops.yaml`: for the demo, the replay, benches and tests, which
 * compose the same adapters as the commands (`compose/compose.ts`) from settings they choose.
 */
export function settingsWith(values: Partial<Settings>): Settings {
  const defaults: Record<string, unknown> = {};
  for (const o of CONNECTION_OPTIONS) defaults[o.key] = o.variadic ? [] : o.default;
  return {
    ...(defaults as unknown as Settings),
    githubToken: undefined,
    gitlabToken: undefined,
    giteaToken: undefined,
    kubeconfig: undefined,
    dryRun: false,
    ...values,
  };
}
