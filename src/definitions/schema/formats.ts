import { isDnsLabel, isDnsSubdomain, isLabelKey } from '../rules/dns-label.js';
import { isImageReference } from '../rules/image.js';
import { isEnvName } from '../rules/env-name.js';
import { isNamespacePattern } from '../rules/namespace-pattern.js';
import { isAnnotationPattern } from '../rules/pod-annotations.js';
import { isQuantity } from '../rules/quantity.js';

/**
 * The custom `format`s of the gpuops schemas, as ajv format definitions (string formats only). The
 * same objects serve the validators compiled at run time (`runtime-compile.ts`) and the standalone
 * code generated at build time (`validators.generated.ts` imports this map by name).
 * - `dns-1123-label`: a Kubernetes object name (DNS-1123 label, ≤ 63 characters);
 * - `k8s-quantity`: a resource quantity (`4`, `500m`, `16Gi`);
 * - `k8s-label-key`: a label key (`[prefix/]name`);
 * - `dns-1123-subdomain`: a ServiceAccount name (DNS-1123 subdomain, ≤ 253 characters);
 * - `k8s-namespace-pattern`: a namespace, or a namespace prefix and `*` (`team-*`);
 * - `k8s-annotation-pattern`: an annotation key where `*` stands for any characters but `/`;
 * - `k8s-image`: a container image reference (`[registry/]path[:tag][@digest]`);
 * - `k8s-env-name`: an environment variable name (`IsEnvVarName`: no `=`).
 */
export const formats = {
  'dns-1123-label': { type: 'string', validate: isDnsLabel },
  'k8s-quantity': { type: 'string', validate: isQuantity },
  'k8s-label-key': { type: 'string', validate: isLabelKey },
  'dns-1123-subdomain': { type: 'string', validate: isDnsSubdomain },
  'k8s-namespace-pattern': { type: 'string', validate: isNamespacePattern },
  'k8s-annotation-pattern': { type: 'string', validate: isAnnotationPattern },
  'k8s-image': { type: 'string', validate: isImageReference },
  'k8s-env-name': { type: 'string', validate: isEnvName },
} as const;
