/**
 * Kubernetes' own rules for the names and keys of an Algorithm that its OpenAPI schema cannot say,
 * so a spec that passes `validate` is one the API server and the kubelet accept
 * (`k8s.io/apimachinery/pkg/util/validation`, `pkg/apis/core/validation`), not one refused at sync
 * time. Pure.
 *
 * - label keys and annotation keys are qualified names: `[prefix/]name`, the name ≤ 63 characters
 *   of letters, digits, `-`, `_`, `.` starting and ending alphanumeric, the prefix a DNS-1123
 *   subdomain ≤ 253 (`metadata` and `spec.template.metadata`);
 * - label values are ≤ 63 characters of the same alphabet, or empty;
 * - the annotations of one object hold at most 256 KiB (keys and values, bytes);
 * - env names in the template's containers and init containers follow `IsEnvVarName`
 *   (`[-._a-zA-Z][-._a-zA-Z0-9]*`: no `=`, no leading digit), as `spec.env` does in the schema;
 * - an init container's image is an image reference (`./image.ts`).
 */
import { isLabelKey } from './dns-label.js';
import { envNameMessage, isEnvName } from './env-name.js';
import { imageMessage, isImageReference } from './image.js';
import type { FieldProblem } from './schema-errors.js';
import type { PathSegment } from './yaml-documents.js';

type Obj = Record<string, unknown>;
const isMap = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);
const list = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter(isMap) : []);

/** Largest total size of one object's annotations (bytes; `TotalAnnotationSizeLimitB`). */
export const ANNOTATIONS_MAX_BYTES = 256 * 1024;

const LABEL_VALUE = /^(?:[A-Za-z0-9](?:[-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?$/;
/** True when `value` is a valid label value (≤ 63 characters, may be empty). */
export function isLabelValue(value: string): boolean {
  return LABEL_VALUE.test(value);
}

const KEY_RULE =
  '[prefix/]name: name ≤ 63 characters of letters, digits, "-", "_", "." starting and ending with a letter or digit; prefix a DNS subdomain ≤ 253';

/** Every problem of the labels and annotations of `metadata` and `spec.template.metadata`. */
function metadataProblems(meta: unknown, at: PathSegment[], out: FieldProblem[]): void {
  if (!isMap(meta)) return;
  const labels = meta['labels'];
  if (isMap(labels)) {
    for (const [key, value] of Object.entries(labels)) {
      if (!isLabelKey(key))
        out.push({
          path: [...at, 'labels', key],
          at: 'key',
          message: `"${key}" is not a label key (${KEY_RULE})`,
        });
      else if (typeof value === 'string' && !isLabelValue(value))
        out.push({
          path: [...at, 'labels', key],
          at: 'value',
          message: `"${value.slice(0, 70)}" is not a label value: at most 63 letters, digits, "-", "_", "." starting and ending with a letter or digit (or empty)`,
        });
    }
  }
  const annotations = meta['annotations'];
  if (!isMap(annotations)) return;
  let bytes = 0;
  for (const [key, value] of Object.entries(annotations)) {
    bytes += Buffer.byteLength(key) + (typeof value === 'string' ? Buffer.byteLength(value) : 0);
    if (!isLabelKey(key))
      out.push({
        path: [...at, 'annotations', key],
        at: 'key',
        message: `"${key}" is not an annotation key (${KEY_RULE})`,
      });
  }
  if (bytes > ANNOTATIONS_MAX_BYTES)
    out.push({
      path: [...at, 'annotations'],
      at: 'key',
      message: `annotations hold ${bytes} bytes; Kubernetes takes at most ${ANNOTATIONS_MAX_BYTES} (256 KiB) per object`,
    });
}

/**
 * The problems of an Algorithm document (as parsed, possibly invalid) against Kubernetes' name
 * rules above, each at its key or value.
 */
export function kubernetesNameProblems(value: unknown): FieldProblem[] {
  const out: FieldProblem[] = [];
  const doc = isMap(value) ? value : {};
  const spec = isMap(doc['spec']) ? doc['spec'] : {};
  const template = isMap(spec['template']) ? spec['template'] : {};
  metadataProblems(doc['metadata'], ['metadata'], out);
  metadataProblems(template['metadata'], ['spec', 'template', 'metadata'], out);
  const pod = isMap(template['spec']) ? template['spec'] : {};
  for (const group of ['initContainers', 'containers'] as const) {
    list(pod[group]).forEach((c, i) => {
      const at: PathSegment[] = ['spec', 'template', 'spec', group, i];
      list(c['env']).forEach((e, j) => {
        if (typeof e['name'] === 'string' && !isEnvName(e['name']))
          out.push({ path: [...at, 'env', j, 'name'], at: 'value', message: envNameMessage(e['name']) });
      });
      if (group === 'initContainers' && typeof c['image'] === 'string' && !isImageReference(c['image']))
        out.push({ path: [...at, 'image'], at: 'value', message: imageMessage(c['image']) });
    });
  }
  return out;
}
