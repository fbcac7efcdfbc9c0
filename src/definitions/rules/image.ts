/**
 * Container image references as the kubelet parses them (the distribution `reference` grammar,
 * https://github.com/distribution/reference/blob/main/regexp.go): a spec whose image the kubelet
 * cannot parse fails `InvalidImageName` on the node, final until the spec changes, so `validate`
 * refuses it first. The API server itself refuses only leading or trailing whitespace. Pure.
 *
 * ```
 * reference  := name [ ":" tag ] [ "@" digest ]
 * name       := [ domain "/" ] path-component ( "/" path-component )*     (≤ 255 characters)
 * domain     := host [ ":" port ]         host: DNS name (any case) or [IPv6]
 * path-component := [a-z0-9]+ ( ( "." | "_" | "__" | "-"+ ) [a-z0-9]+ )*
 * tag        := [A-Za-z0-9_] [A-Za-z0-9_.-]{0,127}
 * digest     := algorithm ":" hex{32,}
 * ```
 */
const COMPONENT = '[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*';
const DOMAIN_PART = '(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])';
const HOST = `(?:${DOMAIN_PART}(?:\\.${DOMAIN_PART})*|\\[[a-fA-F0-9:]+\\])`;
const NAME = `(?:${HOST}(?::[0-9]+)?/)?${COMPONENT}(?:/${COMPONENT})*`;
const TAG = '[\\w][\\w.-]{0,127}';
const DIGEST = '[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}';
const REFERENCE = new RegExp(`^(${NAME})(?::${TAG})?(?:@${DIGEST})?$`);

/** True when `image` is a reference the kubelet can pull (`registry.example.com/ml/x:1.0`). */
export function isImageReference(image: string): boolean {
  const m = REFERENCE.exec(image);
  return m !== null && m[1]!.length <= 255;
}

/** Why `image` is not a reference, naming the first mistake a person would look for. */
export function imageMessage(image: string): string {
  const rule =
    'a container image is [registry[:port]/]path[:tag][@digest] with a lower-case path (the kubelet refuses anything else: InvalidImageName)';
  // eslint-disable-next-line no-control-regex
  if (/[\s\u0000-\u001f\u007f]/.test(image)) return `holds whitespace or a control character; ${rule}`;
  if (isImageReference(image.toLowerCase())) return `"${image}" has upper-case letters in its path; ${rule}`;
  return `"${image}" is not an image reference; ${rule}`;
}
