/**
 * What the API server does to a v1 Secret on every write (create, update, patch, apply):
 * `stringData` is folded into `data` as base64 (a `stringData` key wins over the same `data` key)
 * and dropped, `type` defaults to `Opaque`, and every `data` value must be standard base64, as the
 * JSON decoding of a `[]byte` field demands.
 * https://kubernetes.io/docs/concepts/configuration/secret/#restriction-names-data
 */
import { SimApiError, type KubeObject } from './types.js';

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * Normalises a Secret in place. @throws SimApiError 400 BadRequest when a `data` value is not
 * base64 or a `stringData` value is not a string (the API server rejects the body as undecodable).
 */
export function normaliseSecret(obj: KubeObject): void {
  const data = (obj.data ?? {}) as Record<string, unknown>;
  const stringData = (obj.stringData ?? {}) as Record<string, unknown>;
  for (const [key, value] of Object.entries(data)) {
    if (typeof value !== 'string' || !BASE64.test(value)) {
      throw new SimApiError(
        400,
        'BadRequest',
        `Secret in version "v1" cannot be handled as a Secret: illegal base64 data in data.${key}`,
      );
    }
  }
  for (const [key, value] of Object.entries(stringData)) {
    if (typeof value !== 'string') {
      throw new SimApiError(
        400,
        'BadRequest',
        `Secret in version "v1" cannot be handled as a Secret: stringData.${key} must be a string`,
      );
    }
    data[key] = Buffer.from(value, 'utf8').toString('base64');
  }
  delete obj.stringData;
  if (Object.keys(data).length > 0) obj.data = data;
  obj.type ??= 'Opaque';
}
