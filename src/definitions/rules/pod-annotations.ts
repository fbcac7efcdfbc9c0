/**
 * Annotations a spec puts on its pods pass the policy's allow-list `spec.allowedPodAnnotations` (a
 * spec author is confined: docs/design.md, "Architecture"). An annotation on a pod is an
 * instruction to whatever watches pods: kube2iam and kiam give the pod the IAM role of
 * `iam.amazonaws.com/role`,
 * `container.apparmor.security.beta.kubernetes.io/<container>: unconfined` lifts its AppArmor
 * profile, `seccomp.security.alpha.kubernetes.io/pod` its seccomp profile. So the platform team
 * names the keys a spec author may set; anything else is an error at the key. Pure.
 *
 * Both places that reach pods are checked: `metadata.annotations` (put on the benchmark Job's pod)
 * and `spec.template.metadata.annotations` (the Deployment's and the Job's pods).
 */
import type { PolicySpec } from '../types.js';
import { isLabelKey } from './dns-label.js';
import type { FieldProblem } from './schema-errors.js';
import type { PathSegment } from './yaml-documents.js';

/**
 * An `allowedPodAnnotations` entry: an annotation key in which `*` stands for any run of
 * characters but `/` (`*`: every key without a prefix; `prometheus.io/*`: every key of that
 * prefix; `*.example.com/*`).
 */
export function isAnnotationPattern(p: string): boolean {
  return isLabelKey(p.replace(/\*/g, 'x'));
}

/** True when `key` matches the pattern (see {@link isAnnotationPattern}). */
export function annotationAllowed(pattern: string, key: string): boolean {
  const source = pattern
    .split('*')
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('[^/]*');
  return new RegExp(`^${source}$`).test(key);
}

const isMap = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * One problem per annotation key (of `metadata.annotations` and
 * `spec.template.metadata.annotations`) that no `allowedPodAnnotations` pattern matches, at the key.
 * @param value the Algorithm document as parsed (possibly invalid; non-mappings are skipped)
 */
export function podAnnotationProblems(value: unknown, policy: PolicySpec): FieldProblem[] {
  const doc = isMap(value) ? value : {};
  const spec = isMap(doc['spec']) ? doc['spec'] : {};
  const template = isMap(spec['template']) ? spec['template'] : {};
  const places: [PathSegment[], unknown][] = [
    [['metadata', 'annotations'], isMap(doc['metadata']) ? doc['metadata']['annotations'] : undefined],
    [
      ['spec', 'template', 'metadata', 'annotations'],
      isMap(template['metadata']) ? template['metadata']['annotations'] : undefined,
    ],
  ];
  const allowed = policy.allowedPodAnnotations;
  const out: FieldProblem[] = [];
  for (const [path, annotations] of places) {
    if (!isMap(annotations)) continue;
    for (const key of Object.keys(annotations)) {
      // A malformed key is `k8s-names.ts`'s to report (one problem per key).
      if (!isLabelKey(key) || allowed.some((p) => annotationAllowed(p, key))) continue;
      out.push({
        path: [...path, key],
        at: 'key',
        message: `annotation "${key}" is not in the policy's allowedPodAnnotations (${allowed.join(', ') || 'none'}); it reaches the algorithm's pods, where an annotation can change their identity or confinement (an IAM role, an AppArmor profile)`,
      });
    }
  }
  return out;
}
