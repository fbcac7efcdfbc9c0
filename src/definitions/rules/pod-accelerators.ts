/**
 * Accelerators and priority a spec could take past gpuops's accounting, each refused unless the
 * policy's `podSecurity` allows it. gpuops places, counts and scales an algorithm by the whole
 * GPUs of `spec.resources.gpus` (`nvidia.com/gpu`, which it sets itself); pods that take other
 * accelerators, or preempt other teams' pods, escape the pools and the capacity it plans with:
 *
 * | field (any container, or the pod) | allowance |
 * |---|---|
 * | an extended resource in `resources.requests`/`limits` (`nvidia.com/mig-1g.10gb`, `nvidia.com/gpu.shared`, `gpu.intel.com/i915`, …) | the name in `extendedResources` (a name or `prefix*`) |
 * | the pod's `resourceClaims` or a container's `resources.claims` (dynamic resource allocation) | `resourceClaims` |
 * | `priorityClassName` (`system-node-critical`, `system-cluster-critical`, any other class) | the name in `priorityClassNames` |
 * | `priority` (the API server's Priority admission sets it from the class) | never: set `priorityClassName` |
 * | an `env` named `NVIDIA_VISIBLE_DEVICES` (`all` hands every GPU of the node to a container that requests none) | never: GPUs come from `spec.resources.gpus` |
 *
 * Kubernetes' own resources stay allowed: `cpu`, `memory`, `ephemeral-storage`, `hugepages-*`
 * and anything under `kubernetes.io/`; every vendor's GPU resource (`nvidia.com/gpu`, `amd.com/gpu`)
 * is `pod-owned.ts`'s. Pure.
 */
import type { PodSecurityPolicy } from '../types.js';
import { annotationAllowed } from './pod-annotations.js';
import type { FieldProblem } from './schema-errors.js';
import type { PathSegment } from './yaml-documents.js';
import { GPU_RESOURCES } from './pod-owned.js';

type Obj = Record<string, unknown>;
const isMap = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/** True for a resource Kubernetes itself defines (not an extended resource). */
function builtIn(name: string): boolean {
  return (
    ['cpu', 'memory', 'ephemeral-storage', 'storage'].includes(name) ||
    name.startsWith('hugepages-') ||
    name.startsWith('requests.') ||
    /(^|\.)kubernetes\.io\//.test(name)
  );
}

/**
 * Every accelerator, claim, priority and GPU-visibility field of the partial `PodSpec` `pod` that
 * `allow` does not permit, located at the field.
 * @param pod  the value of `spec.template.spec`
 * @param base its path in the document
 */
export function podAcceleratorProblems(
  pod: Obj,
  base: readonly PathSegment[],
  allow: PodSecurityPolicy,
): FieldProblem[] {
  const out: FieldProblem[] = [];
  const refuse = (path: PathSegment[], message: string, at: 'key' | 'value' = 'value') =>
    out.push({ path, at, message });
  const knob = (k: keyof PodSecurityPolicy) =>
    `; the policy's podSecurity.${k} does not allow it (ask the platform team)`;
  if ('resourceClaims' in pod && !allow.resourceClaims)
    refuse(
      [...base, 'resourceClaims'],
      `a resource claim can hand out GPUs beside spec.resources.gpus${knob('resourceClaims')}`,
      'key',
    );
  if (
    typeof pod['priorityClassName'] === 'string' &&
    !allow.priorityClassNames.includes(pod['priorityClassName'])
  )
    refuse(
      [...base, 'priorityClassName'],
      `priority class ${pod['priorityClassName']} lets the pod preempt other pods or outrank eviction${knob('priorityClassNames')}`,
    );
  if ('priority' in pod)
    refuse(
      [...base, 'priority'],
      'the priority comes from priorityClassName (the API server sets it)',
      'key',
    );
  for (const group of ['initContainers', 'containers'] as const)
    list(pod[group]).forEach((c, i) => {
      if (!isMap(c)) return;
      const at: PathSegment[] = [...base, group, i];
      const resources = isMap(c['resources']) ? c['resources'] : {};
      for (const kind of ['requests', 'limits'] as const) {
        const r = resources[kind];
        if (!isMap(r)) continue;
        for (const name of Object.keys(r)) {
          if (
            GPU_RESOURCES.has(name) ||
            builtIn(name) ||
            allow.extendedResources.some((p) => annotationAllowed(p, name))
          )
            continue;
          refuse(
            [...at, 'resources', kind, name],
            `${name} is an accelerator or device gpuops does not count (it places and scales by spec.resources.gpus)${knob('extendedResources')}`,
            'key',
          );
        }
      }
      if ('claims' in resources && !allow.resourceClaims)
        refuse(
          [...at, 'resources', 'claims'],
          `a resource claim can hand out GPUs beside spec.resources.gpus${knob('resourceClaims')}`,
          'key',
        );
      visibleDevices(c['env'], [...at, 'env'], refuse);
    });
  return out;
}

/** `NVIDIA_VISIBLE_DEVICES` in the Algorithm's own `spec.env`, at its name. */
export function specEnvProblems(value: unknown): FieldProblem[] {
  const out: FieldProblem[] = [];
  const spec = isMap(value) && isMap(value['spec']) ? value['spec'] : {};
  visibleDevices(spec['env'], ['spec', 'env'], (path, message) => out.push({ path, at: 'value', message }));
  return out;
}

/** `NVIDIA_VISIBLE_DEVICES` in an env list, at its name. */
function visibleDevices(
  env: unknown,
  at: PathSegment[],
  refuse: (p: PathSegment[], m: string) => void,
): void {
  list(env).forEach((e, j) => {
    if (isMap(e) && e['name'] === 'NVIDIA_VISIBLE_DEVICES')
      refuse(
        [...at, j, 'name'],
        'NVIDIA_VISIBLE_DEVICES chooses GPUs past the device plugin ("all" is every GPU of the node); GPUs come from spec.resources.gpus',
      );
  });
}
