import type { JSONSchemaType } from 'ajv';
import { API_VERSION, SIGNAL_KINDS, type Policy } from '../types.js';
import { ALGORITHM_LIMITS } from './algorithm.js';
import { DCGM_SCALING_METRICS } from '../../util/index.js';

const SIGNALS = SIGNAL_KINDS;

/**
 * Upper bounds of the policy's numbers: what the API server takes (int32 for replicas and
 * `ttlSecondsAfterFinished`, int64 for `activeDeadlineSeconds`) narrowed to what a GPU fleet makes
 * sense of, so a typo (`windowSeconds: 3000000`, `maxReplicas: 1e9`) is an error at `validate`, not
 * a Job or a query that never ends.
 */
export const POLICY_LIMITS = {
  /** Any duration: 30 days (seconds). */
  seconds: 2_592_000,
  /** One benchmark run's deadline and the long-task threshold: 7 days (seconds). */
  runSeconds: 604_800,
  /** Replicas, a scaling step, the test pool's size: a GPU fleet's size (count). */
  replicas: 10_000,
  /** Job backoffLimit (Kubernetes' default is 6) (count). */
  backoffLimit: 10,
  /** Pull requests per pass and open at once (count). */
  pullRequests: 1000,
} as const;

const seconds = { type: 'integer', minimum: 0, maximum: POLICY_LIMITS.seconds } as const;
const count = (minimum: number, maximum: number) => ({ type: 'integer', minimum, maximum }) as const;
const percent = { type: 'number', minimum: 0, maximum: 100 } as const;
const window = {
  type: 'object',
  additionalProperties: false,
  required: ['cooldownSeconds', 'stabilizationWindowSeconds'],
  properties: { cooldownSeconds: seconds, stabilizationWindowSeconds: seconds },
} as const;
/** `scaleDown`: `window` plus the optional `peakWindowSeconds` (default 0, off). */
const scaleDownWindow = {
  ...window,
  properties: { ...window.properties, peakWindowSeconds: { ...seconds, nullable: true } },
} as const;

/**
 * JSON Schema of the merged `Policy` (`policies/default.yaml` overridden by a repo's
 * `policies/*.yaml`). Every field is required here because the shipped default sets them all,
 * except `scaling.scaleDown.peakWindowSeconds` (optional, default 0: off) and
 * `placement.onDeletedSpec` (optional, default `propose-removal`), added after policies were
 * written without them;
 * override files are partial and are checked by validating the merge (see `../rules/policy.ts`).
 * Typed as `JSONSchemaType<Policy>`, so `tsc` fails when schema and type drift apart.
 * Units are in `policies/default.yaml`.
 */
export const policySchema: JSONSchemaType<Policy> = {
  $id: 'https://gpuops.dev/schemas/v1alpha1/policy.json',
  type: 'object',
  additionalProperties: false,
  required: ['apiVersion', 'kind', 'metadata', 'spec'],
  properties: {
    apiVersion: { type: 'string', const: API_VERSION },
    kind: { type: 'string', const: 'Policy' },
    metadata: {
      type: 'object',
      additionalProperties: false,
      required: ['name'],
      properties: { name: { type: 'string', format: 'dns-1123-label' } },
    },
    spec: {
      type: 'object',
      additionalProperties: false,
      required: [
        'namespace',
        'controllerNamespace',
        'allowedPodAnnotations',
        'limits',
        'podSecurity',
        'pools',
        'placement',
        'benchmark',
        'scaling',
        'pullRequests',
        'rollout',
      ],
      properties: {
        namespace: { type: 'string', format: 'dns-1123-label' },
        allowedNamespaces: {
          type: 'array',
          items: { type: 'string', format: 'k8s-namespace-pattern' },
          nullable: true,
        },
        namespacesByPath: {
          type: 'array',
          nullable: true,
          items: {
            type: 'object',
            additionalProperties: false,
            required: ['path', 'namespaces'],
            properties: {
              path: { type: 'string', minLength: 1, maxLength: 256 },
              namespaces: {
                type: 'array',
                minItems: 1,
                items: { type: 'string', minLength: 1, maxLength: 63 },
              },
            },
          },
        },
        controllerNamespace: { type: 'string', format: 'dns-1123-label' },
        limits: {
          type: 'object',
          additionalProperties: false,
          required: ['replicas', 'gpusPerPod', 'benchmarkRuns', 'benchmarkTimeoutSeconds'],
          properties: {
            replicas: count(1, POLICY_LIMITS.replicas),
            gpusPerPod: count(1, ALGORITHM_LIMITS.gpus),
            benchmarkRuns: count(1, 100),
            benchmarkTimeoutSeconds: count(1, POLICY_LIMITS.runSeconds),
          },
        },
        allowedPodAnnotations: {
          type: 'array',
          items: { type: 'string', format: 'k8s-annotation-pattern' },
        },
        podSecurity: {
          type: 'object',
          additionalProperties: false,
          required: [
            'privileged',
            'allowPrivilegeEscalation',
            'capabilities',
            'hostPath',
            'hostNetwork',
            'hostPID',
            'hostIPC',
            'hostPorts',
            'serviceAccountNames',
            'automountServiceAccountToken',
            'runAsRoot',
            'seLinux',
            'volumeTypes',
            'sysctls',
            'extendedResources',
            'resourceClaims',
            'priorityClassNames',
          ],
          properties: {
            privileged: { type: 'boolean' },
            allowPrivilegeEscalation: { type: 'boolean' },
            capabilities: { type: 'array', items: { type: 'string', pattern: '^[A-Z_]+$' } },
            hostPath: { type: 'boolean' },
            hostNetwork: { type: 'boolean' },
            hostPID: { type: 'boolean' },
            hostIPC: { type: 'boolean' },
            hostPorts: { type: 'boolean' },
            serviceAccountNames: { type: 'array', items: { type: 'string', format: 'dns-1123-subdomain' } },
            automountServiceAccountToken: { type: 'boolean' },
            runAsRoot: { type: 'boolean' },
            seLinux: { type: 'boolean' },
            // Field names of a Kubernetes Volume's source (nfs, iscsi, gitRepo, …).
            volumeTypes: { type: 'array', items: { type: 'string', pattern: '^[a-z][A-Za-z]*$' } },
            sysctls: { type: 'array', items: { type: 'string', pattern: '^[a-z0-9_.*/-]+$' } },
            extendedResources: { type: 'array', items: { type: 'string', format: 'k8s-annotation-pattern' } },
            resourceClaims: { type: 'boolean' },
            priorityClassNames: { type: 'array', items: { type: 'string', format: 'dns-1123-subdomain' } },
          },
        },
        pools: {
          type: 'object',
          additionalProperties: false,
          required: ['labelKey', 'taint', 'test', 'returnAfterSeconds', 'prePull'],
          properties: {
            labelKey: { type: 'string', format: 'k8s-label-key' },
            taint: {
              type: 'object',
              additionalProperties: false,
              required: ['enabled', 'effect'],
              properties: {
                enabled: { type: 'boolean' },
                effect: { type: 'string', enum: ['NoSchedule', 'PreferNoSchedule', 'NoExecute'] },
              },
            },
            test: {
              type: 'object',
              additionalProperties: false,
              required: ['size', 'perGPUProduct'],
              properties: {
                size: count(0, POLICY_LIMITS.replicas),
                perGPUProduct: { type: 'boolean' },
              },
            },
            returnAfterSeconds: seconds,
            prePull: {
              type: 'object',
              additionalProperties: false,
              required: ['enabled'],
              properties: { enabled: { type: 'boolean' } },
            },
          },
        },
        placement: {
          type: 'object',
          additionalProperties: false,
          required: ['longTaskThresholdSeconds'],
          properties: {
            longTaskThresholdSeconds: { type: 'number', minimum: 0, maximum: POLICY_LIMITS.runSeconds },
            onDeletedSpec: { type: 'string', enum: ['propose-removal', 'keep-and-report'], nullable: true },
          },
        },
        benchmark: {
          type: 'object',
          additionalProperties: false,
          required: [
            'runs',
            'timeoutSeconds',
            'unschedulableTimeoutSeconds',
            'startTimeoutSeconds',
            'startRetryBackoffSeconds',
            'backoffLimit',
            'ttlSecondsAfterFinished',
          ],
          properties: {
            runs: { type: 'integer', minimum: 1, maximum: 100 },
            timeoutSeconds: count(1, POLICY_LIMITS.runSeconds),
            unschedulableTimeoutSeconds: seconds,
            startTimeoutSeconds: seconds,
            startRetryBackoffSeconds: seconds,
            backoffLimit: count(0, POLICY_LIMITS.backoffLimit),
            ttlSecondsAfterFinished: seconds,
            queueName: { type: 'string', format: 'dns-1123-label', nullable: true },
          },
        },
        scaling: {
          type: 'object',
          additionalProperties: false,
          required: [
            'mode',
            'engine',
            'metric',
            'minReplicas',
            'maxReplicas',
            'step',
            'sizing',
            'headroomFactor',
            'headroomDownMargin',
            'headroomFlapHoldSeconds',
            'targetUtilization',
            'utilization',
            'windowSeconds',
            'staleSampleSeconds',
            'podStartupSeconds',
            'scaleUp',
            'scaleDown',
            'hpa',
          ],
          properties: {
            mode: { type: 'string', enum: ['pull-request', 'patch'] },
            engine: { type: 'string', enum: ['gpuops', 'hpa'] },
            metric: { type: 'string', enum: [...DCGM_SCALING_METRICS] },
            signal: { type: 'string', enum: [...SIGNALS], nullable: true },
            allowedSignals: {
              type: 'array',
              items: { type: 'string', enum: [...SIGNALS] },
              minItems: 1,
              uniqueItems: true,
              nullable: true,
            },
            serviceMetrics: {
              type: 'array',
              maxItems: 50,
              nullable: true,
              items: {
                type: 'object',
                additionalProperties: false,
                required: ['name', 'unit', 'query'],
                properties: {
                  name: { type: 'string', pattern: '^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$' },
                  unit: { type: 'string', minLength: 1, maxLength: 32 },
                  query: { type: 'string', minLength: 1, maxLength: 4096 },
                },
              },
            },
            fromBenchmark: {
              type: 'object',
              additionalProperties: false,
              required: ['allowed', 'headroom', 'bandRatio'],
              nullable: true,
              properties: {
                allowed: { type: 'boolean' },
                headroom: { type: 'number', minimum: 0, maximum: 0.9 },
                bandRatio: { type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 1 },
              },
            },
            minReplicas: count(1, POLICY_LIMITS.replicas),
            maxReplicas: count(1, POLICY_LIMITS.replicas),
            step: count(1, POLICY_LIMITS.replicas),
            sizing: { type: 'string', enum: ['step', 'load', 'headroom'] },
            headroomFactor: { type: 'number', minimum: 0, maximum: 10 },
            headroomDownMargin: { type: 'number', minimum: 0, maximum: 10 },
            headroomFlapHoldSeconds: seconds,
            targetUtilization: percent,
            utilization: {
              type: 'object',
              additionalProperties: false,
              required: ['min', 'max'],
              properties: { min: percent, max: percent },
            },
            windowSeconds: count(1, POLICY_LIMITS.seconds),
            staleSampleSeconds: count(1, POLICY_LIMITS.seconds),
            podStartupSeconds: count(1, POLICY_LIMITS.seconds),
            scaleUp: window,
            scaleDown: scaleDownWindow,
            hpa: {
              type: 'object',
              additionalProperties: false,
              required: ['targetUtilization'],
              properties: { targetUtilization: { type: 'number', exclusiveMinimum: 0, maximum: 100 } },
            },
          },
        },
        pullRequests: {
          type: 'object',
          additionalProperties: false,
          required: ['maxOpenedPerPass', 'maxOpen', 'labels'],
          properties: {
            maxOpenedPerPass: count(0, POLICY_LIMITS.pullRequests),
            maxOpen: count(0, POLICY_LIMITS.pullRequests),
            labels: { type: 'array', items: { type: 'string', minLength: 1 } },
          },
        },
        rollout: {
          type: 'object',
          additionalProperties: false,
          required: ['strategy', 'maxSurge', 'maxUnavailable'],
          properties: {
            strategy: { type: 'string', enum: ['RollingUpdate', 'Recreate'] },
            maxSurge: count(0, POLICY_LIMITS.replicas),
            maxUnavailable: count(0, POLICY_LIMITS.replicas),
          },
        },
        standby: {
          type: 'array',
          nullable: true,
          maxItems: 100,
          items: {
            type: 'object',
            additionalProperties: false,
            required: [
              'name',
              'pool',
              'namespace',
              'image',
              'algorithms',
              'gpus',
              'port',
              'readinessPath',
              'wakePath',
              'claimSeconds',
            ],
            properties: {
              name: { type: 'string', format: 'dns-1123-label', maxLength: 48 },
              pool: { type: 'string', enum: ['long-task', 'short-task'] },
              namespace: { type: 'string', format: 'dns-1123-label' },
              image: { type: 'string', minLength: 1, format: 'k8s-image' },
              algorithms: {
                type: 'array',
                minItems: 1,
                maxItems: POLICY_LIMITS.pullRequests,
                items: { type: 'string', format: 'dns-1123-label' },
              },
              gpus: count(1, ALGORITHM_LIMITS.gpus),
              port: count(1, 65535),
              readinessPath: { type: 'string', pattern: '^/[^\\s]*$', maxLength: 256 },
              wakePath: { type: 'string', pattern: '^/[^\\s]*$', maxLength: 256 },
              claimSeconds: { type: 'number', minimum: 0, maximum: 600 },
              headroomFactor: { type: 'number', minimum: 0, maximum: 10, nullable: true },
            },
          },
        },
      },
    },
  },
};
