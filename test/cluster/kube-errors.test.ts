/**
 * The one rule for Kubernetes API errors (`src/cluster/kube-errors.ts`), row by row: each HTTP
 * status beside its neighbour, network failures with and without a code, and the error's text.
 */
import { ApiException } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import {
  classifyKubeError,
  kindOfStatus,
  KubeApiError,
  toKubeApiError,
  type KubeErrorKind,
} from '../../src/cluster/kube-errors.js';

const api = (code: number, body: unknown = '', headers: Record<string, string> = {}) =>
  new ApiException(code, `HTTP-Code: ${code}\nMessage: x`, body, headers);

const netErr = (code: string, message = `connect ${code} 10.0.0.1:6443`) =>
  Object.assign(new Error(message), { code });

describe('kindOfStatus: every status beside its neighbour', () => {
  const rows: [number, KubeErrorKind][] = [
    [400, 'permanent'],
    [401, 'permanent'],
    [403, 'permanent'],
    [404, 'not-found'],
    [408, 'permanent'],
    [409, 'conflict'],
    [410, 'gone'],
    [422, 'permanent'],
    [428, 'permanent'],
    [429, 'transient'],
    [430, 'permanent'],
    [499, 'permanent'],
    [500, 'transient'],
    [501, 'permanent'],
    [502, 'transient'],
    [503, 'transient'],
    [504, 'transient'],
    [599, 'transient'],
    [600, 'permanent'],
  ];
  it.each(rows)('HTTP %i → %s', (status, kind) => {
    expect(kindOfStatus(status)).toBe(kind);
    expect(classifyKubeError(api(status)).kind).toBe(kind);
    expect(new KubeApiError('op', status, '').transient).toBe(kind === 'transient');
  });
});

describe('classifyKubeError: network failures and other errors', () => {
  const rows: [string, unknown, KubeErrorKind][] = [
    ['connection reset', netErr('ECONNRESET'), 'transient'],
    ['connection refused', netErr('ECONNREFUSED'), 'transient'],
    ['timed out', netErr('ETIMEDOUT'), 'transient'],
    ['undici connect timeout', netErr('UND_ERR_CONNECT_TIMEOUT'), 'transient'],
    ['DNS hiccup', netErr('EAI_AGAIN'), 'transient'],
    ['broken pipe', netErr('EPIPE'), 'transient'],
    [
      'code on the cause (fetch)',
      Object.assign(new Error('fetch failed'), { cause: { code: 'ECONNRESET' } }),
      'transient',
    ],
    ['socket hang up, no code', new Error('socket hang up'), 'transient'],
    ['fetch failed, no code', new TypeError('fetch failed'), 'transient'],
    [
      'a certificate error is not network trouble',
      netErr('CERT_HAS_EXPIRED', 'certificate has expired'),
      'permanent',
    ],
    [
      'a programming error is not retried',
      new TypeError("Cannot read properties of undefined (reading 'x')"),
      'permanent',
    ],
    ['a thrown string', 'boom', 'permanent'],
    [
      'a status on `statusCode` (older clients)',
      Object.assign(new Error('x'), { statusCode: 503 }),
      'transient',
    ],
    ['a status on `code` as a number', Object.assign(new Error('x'), { code: 404 }), 'not-found'],
  ];
  it.each(rows)('%s', (_name, err, kind) => {
    expect(classifyKubeError(err).kind).toBe(kind);
  });

  it('names the network code in the detail once', () => {
    expect(classifyKubeError(new Error('socket closed', { cause: { code: 'ECONNRESET' } })).detail).toBe(
      'ECONNRESET: socket closed',
    );
    expect(classifyKubeError(netErr('ECONNRESET')).detail).toBe('connect ECONNRESET 10.0.0.1:6443');
  });
});

describe('classifyKubeError: what an API server answer carries', () => {
  it('reads Status.message from a JSON string body, an object body, and a plain-text body', () => {
    const status = { kind: 'Status', message: 'jobs.batch "b" already exists', reason: 'AlreadyExists' };
    expect(classifyKubeError(api(409, JSON.stringify(status))).detail).toBe('jobs.batch "b" already exists');
    expect(classifyKubeError(api(409, status)).detail).toBe('jobs.batch "b" already exists');
    expect(classifyKubeError(api(502, 'bad gateway from the proxy')).detail).toBe(
      'bad gateway from the proxy',
    );
    expect(classifyKubeError(api(500, '')).detail).toBe('');
  });

  it('reads Retry-After in seconds as milliseconds; junk or 0 gives none', () => {
    expect(classifyKubeError(api(429, '', { 'retry-after': '3' })).retryAfterMs).toBe(3000);
    expect(classifyKubeError(api(429, '', { 'retry-after': 'soon' })).retryAfterMs).toBeNull();
    expect(classifyKubeError(api(429, '', { 'retry-after': '0' })).retryAfterMs).toBeNull();
    expect(classifyKubeError(api(429)).retryAfterMs).toBeNull();
  });
});

describe('KubeApiError', () => {
  it('names the operation, the status, the detail and the attempts, each only when known', () => {
    expect(new KubeApiError('list pods', 503, 'unavailable', 3).message).toBe(
      'list pods: HTTP 503: unavailable (after 3 attempts)',
    );
    expect(new KubeApiError('list nodes', 403, 'forbidden').message).toBe('list nodes: HTTP 403: forbidden');
    expect(new KubeApiError('list nodes', 500, '').message).toBe('list nodes: HTTP 500');
    expect(new KubeApiError('read Job a/b', null, 'ECONNRESET: reset').message).toBe(
      'read Job a/b: ECONNRESET: reset',
    );
  });

  it('toKubeApiError keeps the kind of the error it translates and passes a KubeApiError through', () => {
    const permanent = toKubeApiError('read Job a/b', new TypeError('bug'));
    expect(permanent.status).toBeNull();
    expect(permanent.kind).toBe('permanent');
    expect(permanent.transient).toBe(false);
    const conflict = toKubeApiError('create Job a/b', api(409, { message: 'exists' }));
    expect([conflict.kind, conflict.status, conflict.message]).toEqual([
      'conflict',
      409,
      'create Job a/b: HTTP 409: exists',
    ]);
    expect(toKubeApiError('other', conflict)).toBe(conflict);
    const retried = toKubeApiError('list pods', conflict, 2);
    expect(retried.message).toBe('list pods: HTTP 409: exists (after 2 attempts)');
    expect(classifyKubeError(retried).kind).toBe('conflict');
  });

  it('a KubeApiError built with no status (a fake JobApi) counts as transient, as a lost answer', () => {
    expect(new KubeApiError('read Job a/b', null, 'lost').transient).toBe(true);
  });
});
