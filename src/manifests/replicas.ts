import { isMap, isScalar, parseAllDocuments } from 'yaml';

/**
 * The scale change of one Deployment file: `text` as the base branch holds it with only
 * `spec.replicas` set to `replicas`; every other byte (comments, key order, quoting, other
 * documents of the file) stays, so a scale pull request and a pending placement pull request
 * touch different lines and git's three-way merge takes both (docs/design.md,
 * "Architecture": "A scale change edits only `spec.replicas`").
 *
 * The `yaml` Document API finds the value's exact source range and only that range is replaced;
 * a Deployment without `spec.replicas` (Kubernetes' default is 1) gets the line inserted as the
 * first key of `spec`, at the indentation of its other keys.
 *
 * @param text     the file's content (one or more YAML documents; the `kind: Deployment` one is edited)
 * @param replicas integer ≥ 0
 * @returns the new content (`text` itself when the count is already `replicas`)
 * @throws RangeError when `replicas` is not an integer ≥ 0
 * @throws Error when the file has no Deployment document with a block-style `spec` map
 */
export function setDeploymentReplicas(text: string, replicas: number): string {
  if (!Number.isInteger(replicas) || replicas < 0) {
    throw new RangeError(`replicas must be an integer ≥ 0, got ${replicas}`);
  }
  // An empty text gives an EmptyStream, itself an (empty) array of documents.
  const docs = parseAllDocuments(text);
  const doc = docs.find((d) => d.errors.length === 0 && d.get('kind') === 'Deployment');
  if (!doc) throw new Error('no valid kind: Deployment document');
  const spec = doc.get('spec', true);
  if (!isMap(spec) || spec.flow) throw new Error('Deployment has no block-style spec map');
  const current = spec.get('replicas', true);
  if (isScalar(current) && current.range) {
    if (current.value === replicas) return text;
    const [start, end] = current.range;
    // An empty value (`replicas:`) has an empty range right after the colon, or at a comment
    // after it: the count then needs a space before it, or one after it to keep the comment one.
    const before = text[start - 1] === ':' ? ' ' : '';
    const after = text[start] === '#' ? ' ' : '';
    return `${text.slice(0, start)}${before}${replicas}${after}${text.slice(end)}`;
  }
  if (current !== undefined) throw new Error('spec.replicas is not a plain value');
  // Insert `replicas: N` before the first key of spec, at its column.
  const first = spec.items[0]?.key;
  if (!isScalar(first) || !first.range) throw new Error('Deployment spec does not start with a plain key');
  const at = first.range[0];
  const lineStart = text.lastIndexOf('\n', at) + 1;
  const indent = text.slice(lineStart, at);
  if (!/^ *$/.test(indent)) throw new Error('Deployment spec keys are not on their own lines');
  return `${text.slice(0, lineStart)}${indent}replicas: ${replicas}\n${text.slice(lineStart)}`;
}
