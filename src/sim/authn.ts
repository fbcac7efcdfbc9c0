/**
 * Authentication of the simulated API server: every API request carries a bearer token, as a
 * kube-apiserver with anonymous auth off demands (`--anonymous-auth=false`). The admin token is the
 * one the simulator's kubeconfig holds (`kubeconfig.ts`); ServiceAccount tokens come from
 * {@link Authenticator.issueToken} (RBAC, `rbac.ts`). A request without a token, with another
 * scheme (`Basic`) or an unknown token gets kube-apiserver's 401 (`apierrors.NewUnauthorized`:
 * reason and message `Unauthorized`, the token never echoed).
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { SimApiError } from './types.js';

/** The default admin token of the simulator's kubeconfig (`gpuops sim` on loopback, tests). */
export const ADMIN_TOKEN = 'gpuops-sim';

/** Who made a request. */
export interface SimUser {
  username: string;
  groups: string[];
}

/** The user of the admin token: a cluster admin (`system:masters`). */
export const ADMIN_USER: SimUser = { username: 'gpuops-sim-admin', groups: ['system:masters'] };

/** `system:serviceaccount:<ns>:<name>`, the username of a ServiceAccount token. */
export function serviceAccountUser(namespace: string, name: string): SimUser {
  return {
    username: `system:serviceaccount:${namespace}:${name}`,
    groups: ['system:serviceaccounts', `system:serviceaccounts:${namespace}`, 'system:authenticated'],
  };
}

/** A random admin token (32 hex digits), for a simulator reachable from other machines. */
export function randomToken(): string {
  return randomBytes(16).toString('hex');
}

/**
 * The token of an `Authorization` header, parsed as kube-apiserver's bearer-token authenticator
 * does (`bearertoken.go`): trimmed, split on single spaces, scheme `bearer` in any case, the second
 * part the token (`Bearer a b` → `a`); undefined for no header, another scheme or an empty token.
 */
export function bearerToken(header: string | undefined): string | undefined {
  const parts = (header ?? '').trim().split(' ');
  if (parts.length < 2 || parts[0]!.toLowerCase() !== 'bearer') return undefined;
  return parts[1] === '' ? undefined : parts[1];
}

/** Tokens to users: the admin token, and the ServiceAccount tokens issued. */
export class Authenticator {
  private readonly tokens = new Map<string, SimUser>();
  private readonly admin: Buffer;

  /** @throws Error when `adminToken` is empty or holds white space or control characters */
  constructor(adminToken: string = ADMIN_TOKEN) {
    if (!/^[\x21-\x7e]+$/.test(adminToken))
      throw new Error('the admin token must be printable ASCII without spaces, and not empty');
    this.admin = Buffer.from(adminToken);
  }

  /** A bearer token for ServiceAccount `namespace/name` (the object itself need not exist). */
  issueToken(namespace: string, name: string): string {
    const token = `sa-${namespace}-${name}-${randomBytes(8).toString('hex')}`;
    this.tokens.set(token, serviceAccountUser(namespace, name));
    return token;
  }

  /** The user of a request's `Authorization: Bearer` header. @throws SimApiError 401 Unauthorized */
  authenticate(req: IncomingMessage): SimUser {
    const token = bearerToken(req.headers.authorization);
    if (token === undefined) throw unauthorized();
    const given = Buffer.from(token);
    if (given.length === this.admin.length && timingSafeEqual(given, this.admin)) return ADMIN_USER;
    const user = this.tokens.get(token);
    if (!user) throw unauthorized();
    return user;
  }
}

/** kube-apiserver's 401 (`apierrors.NewUnauthorized("Unauthorized")`). */
export function unauthorized(): SimApiError {
  return new SimApiError(401, 'Unauthorized', 'Unauthorized');
}
