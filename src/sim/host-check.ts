/**
 * The Host-header check of the simulated API server, against DNS rebinding: a web page on
 * `evil.example` whose name is made to resolve to 127.0.0.1 can send requests to the simulator
 * from the developer's browser, but they carry `Host: evil.example:<port>`. Only the names of the
 * addresses the server listens on are answered (the IP literals, `localhost` when it listens on
 * loopback, and on a wildcard address every interface address and the machine's host name), plus
 * names the caller adds; the port is not compared, so a proxy in front of the simulator works.
 */
import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import { SimApiError } from './types.js';

/** Whether `address` (an IP literal or `localhost`) is loopback: 127.0.0.0/8, ::1, ::ffff:127.x.x.x. */
export function isLoopbackAddress(address: string): boolean {
  const a = address.toLowerCase().replace(/^\[|\]$/g, '');
  if (a === 'localhost' || a.endsWith('.localhost')) return true;
  if (a === '::1' || a === '0:0:0:0:0:0:0:1') return true;
  const v4 = a.startsWith('::ffff:') ? a.slice('::ffff:'.length) : a;
  return isIP(v4) === 4 && v4.startsWith('127.');
}

/** Whether `address` is a wildcard (`0.0.0.0`, `::`): the server listens on every interface. */
export function isWildcardAddress(address: string): boolean {
  const a = address.replace(/^\[|\]$/g, '');
  return a === '0.0.0.0' || a === '::' || a === '0:0:0:0:0:0:0:0';
}

/** Where a server listens, as {@link allowedHostnames} needs it. */
export interface ListenAddresses {
  /** The bound address (`server.address().address`), e.g. `127.0.0.1`, `::`. */
  bound: string;
  /** The `host` the caller asked for (a name such as `localhost`, or an IP literal). */
  requested?: string;
  /** Every interface address of the machine (`os.networkInterfaces()`), for a wildcard bind. */
  interfaces: string[];
  /** The machine's host name (`os.hostname()`), for a wildcard bind. */
  hostname: string;
  /** More names to answer (e.g. a DNS name of the machine). */
  extra?: string[];
}

/** Lower-cased, brackets and one trailing dot removed: the form {@link requestHostname} returns. */
function normal(name: string): string {
  return name
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '');
}

/** The host names a request's Host header may carry for a server listening at `at`. */
export function allowedHostnames(at: ListenAddresses): Set<string> {
  const names = [at.bound, ...(at.requested ? [at.requested] : []), ...(at.extra ?? [])];
  if (isWildcardAddress(at.bound)) names.push(...at.interfaces, at.hostname, 'localhost');
  if (names.some((n) => isLoopbackAddress(n))) names.push('localhost', '127.0.0.1');
  return new Set(names.filter((n) => n !== '').map(normal));
}

/**
 * The host name of a Host header (`127.0.0.1:6443` → `127.0.0.1`, `[::1]:80` → `::1`), parsed as
 * a browser parses the authority of a URL; undefined for a missing or unparsable header.
 */
export function requestHostname(header: string | undefined): string | undefined {
  if (!header || /[\s/?#@\\]/.test(header)) return undefined;
  try {
    return normal(new URL(`http://${header}/`).hostname);
  } catch {
    return undefined;
  }
}

/**
 * Refuses a request whose Host header names none of `allowed`. @throws SimApiError 403 Forbidden
 * naming the host and the names answered
 */
export function checkHost(req: IncomingMessage, allowed: ReadonlySet<string>): void {
  const name = requestHostname(req.headers.host);
  if (name !== undefined && allowed.has(name)) return;
  const shown = JSON.stringify(req.headers.host ?? '');
  throw new SimApiError(
    403,
    'Forbidden',
    `host ${shown} is not an address this server listens on (${[...allowed].join(', ')}); ` +
      'requests through another name are refused against DNS rebinding',
  );
}
