/**
 * Environment variable names as Kubernetes takes them (`IsEnvVarName`,
 * k8s.io/apimachinery/pkg/util/validation): letters, digits, `_`, `-` and `.`, not starting with a
 * digit. An `=` would end the name early in the process's environment. Pure.
 */
const ENV_NAME = /^[-._a-zA-Z][-._a-zA-Z0-9]*$/;

/** True when `name` is an environment variable name Kubernetes accepts (`IsEnvVarName`). */
export function isEnvName(name: string): boolean {
  return ENV_NAME.test(name);
}

/** The message for an env name that {@link isEnvName} refuses. */
export function envNameMessage(name: string): string {
  const why = name.includes('=') ? ' ("=" separates a name from its value)' : '';
  return `"${name}" is not an environment variable name${why}: letters, digits, "_", "-" and ".", not starting with a digit`;
}
