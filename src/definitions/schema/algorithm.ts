import type { JSONSchemaType } from 'ajv';
import { API_VERSION, type Algorithm } from '../types.js';
import { VENDORS } from '../../util/index.js';

/**
 * Upper bounds of an Algorithm's numbers: what the API server takes, narrowed to what a GPU
 * workload makes sense of, so `gpus: 1e300` (a whole number to JSON) or a `maxReplicas` above int32
 * is an error at `validate`, not a manifest the API server refuses.
 */
export const ALGORITHM_LIMITS = {
  /** GPUs of one pod: the largest GPU nodes hold 8-16; 64 leaves room (count). */
  gpus: 64,
  /** A benchmark run's deadline (`activeDeadlineSeconds`, int64): 30 days (seconds). */
  timeoutSeconds: 2_592_000,
  /** `minReplicas`/`maxReplicas`: Kubernetes' `replicas` is an int32 (count). */
  replicas: 2_147_483_647,
} as const;

/** A non-empty list of non-empty strings (command, args). */
const stringList = { type: 'array', items: { type: 'string', minLength: 1 }, nullable: true } as const;

/**
 * JSON Schema of an `Algorithm` document (`algorithms/*.yaml`). Typed as `JSONSchemaType<Algorithm>`,
 * so `tsc` fails when this schema and the `Algorithm` type in `../types.ts` drift apart (a field
 * added, removed, renamed or retyped on one side only).
 *
 * Formats (registered in `./compile.ts`):
 * - `dns-1123-label`: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#dns-label-names
 * - `k8s-quantity`: https://kubernetes.io/docs/reference/kubernetes-api/common-definitions/quantity/
 * - `k8s-image`: an image reference the kubelet can parse (`../rules/image.ts`)
 * - `k8s-env-name`: Kubernetes `IsEnvVarName` (`../rules/k8s-names.ts`)
 * Label and annotation keys and values are checked by `../rules/k8s-names.ts`.
 *
 * `nullable: true` on optional fields is what `JSONSchemaType` demands for them; `compile.ts` strips
 * it, because no gpuops field accepts `null`.
 */
export const algorithmSchema: JSONSchemaType<Algorithm> = {
  $id: 'https://gpuops.dev/schemas/v1alpha1/algorithm.json',
  type: 'object',
  additionalProperties: false,
  required: ['apiVersion', 'kind', 'metadata', 'spec'],
  properties: {
    apiVersion: { type: 'string', const: API_VERSION },
    kind: { type: 'string', const: 'Algorithm' },
    metadata: {
      type: 'object',
      additionalProperties: false,
      required: ['name'],
      properties: {
        name: { type: 'string', format: 'dns-1123-label' },
        namespace: { type: 'string', format: 'dns-1123-label', nullable: true },
        labels: {
          type: 'object',
          additionalProperties: { type: 'string' },
          required: [],
          nullable: true,
        },
        annotations: {
          type: 'object',
          additionalProperties: { type: 'string' },
          required: [],
          nullable: true,
        },
      },
    },
    spec: {
      type: 'object',
      additionalProperties: false,
      required: ['image', 'resources'],
      properties: {
        image: { type: 'string', minLength: 1, format: 'k8s-image' },
        command: stringList,
        args: { type: 'array', items: { type: 'string' }, nullable: true },
        env: {
          type: 'array',
          nullable: true,
          items: {
            type: 'object',
            additionalProperties: false,
            required: ['name', 'value'],
            properties: {
              name: { type: 'string', minLength: 1, format: 'k8s-env-name' },
              value: { type: 'string' },
            },
          },
        },
        resources: {
          type: 'object',
          additionalProperties: false,
          required: ['gpus'],
          properties: {
            gpus: { type: 'integer', minimum: 1, maximum: ALGORITHM_LIMITS.gpus },
            cpu: { type: 'string', format: 'k8s-quantity', nullable: true },
            memory: { type: 'string', format: 'k8s-quantity', nullable: true },
          },
        },
        gpu: {
          type: 'object',
          additionalProperties: false,
          required: [],
          nullable: true,
          properties: {
            // Whose GPUs (`nvidia.com/gpu`, `amd.com/gpu`): the vocabulary's vendors; absent: nvidia.
            vendor: { type: 'string', nullable: true, enum: VENDORS.map((v) => v.id) },
            // The vendor's product label values (`nvidia.com/gpu.product`, `amd.com/gpu.product-name`): Kubernetes label values.
            product: {
              type: 'array',
              nullable: true,
              minItems: 1,
              uniqueItems: true,
              items: {
                type: 'string',
                minLength: 1,
                maxLength: 63,
                pattern: '^[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?$',
              },
            },
          },
        },
        benchmark: {
          type: 'object',
          additionalProperties: false,
          required: [],
          nullable: true,
          properties: {
            args: { type: 'array', items: { type: 'string' }, nullable: true },
            runs: { type: 'integer', minimum: 1, maximum: 100, nullable: true },
            timeoutSeconds: {
              type: 'integer',
              minimum: 1,
              maximum: ALGORITHM_LIMITS.timeoutSeconds,
              nullable: true,
            },
            queueName: { type: 'string', format: 'dns-1123-label', nullable: true },
          },
        },
        scaling: {
          type: 'object',
          additionalProperties: false,
          required: [],
          nullable: true,
          properties: {
            minReplicas: { type: 'integer', minimum: 1, maximum: ALGORITHM_LIMITS.replicas, nullable: true },
            maxReplicas: { type: 'integer', minimum: 1, maximum: ALGORITHM_LIMITS.replicas, nullable: true },
            signal: {
              type: 'string',
              enum: ['gpuUtil', 'gpuEngineActive', 'gpuMemory', 'serviceMetric'],
              nullable: true,
            },
            targets: { type: 'string', enum: ['spec', 'fromBenchmark'], nullable: true },
            serviceMetric: {
              type: 'object',
              additionalProperties: false,
              required: ['name', 'min', 'max'],
              nullable: true,
              properties: {
                name: { type: 'string', minLength: 1, maxLength: 63 },
                unit: { type: 'string', minLength: 1, maxLength: 32, nullable: true },
                min: { type: 'number', minimum: 0 },
                max: { type: 'number', exclusiveMinimum: 0 },
              },
            },
            utilization: {
              type: 'object',
              additionalProperties: false,
              required: [],
              nullable: true,
              properties: {
                min: { type: 'number', minimum: 0, maximum: 100, nullable: true },
                max: { type: 'number', minimum: 0, maximum: 100, nullable: true },
              },
            },
          },
        },
        placement: {
          type: 'object',
          additionalProperties: false,
          required: [],
          nullable: true,
          properties: {
            pool: { type: 'string', enum: ['auto', 'long-task', 'short-task'], nullable: true },
          },
        },
        modelCache: {
          type: 'object',
          additionalProperties: false,
          required: ['claimName', 'mountPath'],
          nullable: true,
          properties: {
            claimName: { type: 'string', format: 'dns-1123-subdomain' },
            // Absolute and clear of the container's own paths: rules/model-cache.ts.
            mountPath: { type: 'string', minLength: 1 },
            fill: {
              type: 'object',
              additionalProperties: false,
              required: ['image'],
              nullable: true,
              properties: {
                image: { type: 'string', minLength: 1, format: 'k8s-image' },
                command: stringList,
                args: { type: 'array', items: { type: 'string' }, nullable: true },
              },
            },
          },
        },
        template: {
          type: 'object',
          additionalProperties: false,
          required: [],
          nullable: true,
          properties: {
            metadata: {
              type: 'object',
              additionalProperties: false,
              required: [],
              nullable: true,
              properties: {
                labels: {
                  type: 'object',
                  additionalProperties: { type: 'string' },
                  required: [],
                  nullable: true,
                },
                annotations: {
                  type: 'object',
                  additionalProperties: { type: 'string' },
                  required: [],
                  nullable: true,
                },
              },
            },
            // Checked field by field against the Kubernetes schema by rules/pod-template.ts.
            spec: { type: 'object', required: [], nullable: true },
          },
        },
      },
    },
  },
};
