/**
 * Where `gpuops run` serves its status page, `/healthz`, `/readyz` and `/metrics`:
 * `--health-address [HOST]:PORT` (the form of controller-runtime's `--health-probe-bind-address`
 * and kube-controller-manager's `--bind-address` with `--secure-port`). The default depends on
 * where gpuops runs: in a Pod (`KUBERNETES_SERVICE_HOST` set, as the kubelet sets it in every
 * container) `0.0.0.0:8080`, as before, because the kubelet's probes and Prometheus reach the
 * Pod's IP; elsewhere (a laptop, a CI runner) `127.0.0.1:8080`, so the status page is not served
 * to the whole network by accident. `--health-port` alone keeps that host and sets the port.
 */
import { isIP } from 'node:net';
import { UsageError } from './settings.js';

/** A TCP listen address: `host` as `net.Server.listen` takes it (an IPv6 address without brackets). */
export interface ListenAddress {
  host: string;
  /** 0..65535; 0 picks a free port. */
  port: number;
}

/** The port of the health server when neither flag gives one. */
export const DEFAULT_HEALTH_PORT = 8080;

/** `0.0.0.0` in a Pod, `127.0.0.1` elsewhere (see the module comment). */
export function defaultHealthHost(env: NodeJS.ProcessEnv): string {
  return env.KUBERNETES_SERVICE_HOST ? '0.0.0.0' : '127.0.0.1';
}

const HOSTNAME = /^(?=.{1,253}$)[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/i;

function port(text: string, flag: string): number {
  const n = Number(text);
  if (!/^\d+$/.test(text) || n > 65535) throw new UsageError(`${flag}: port must be 0..65535, got "${text}"`);
  return n;
}

/**
 * Parses `HOST:PORT`, `[IPv6]:PORT` or `:PORT` (every IPv4 interface, `0.0.0.0`).
 * @throws UsageError naming `--health-address` for a missing or out-of-range port, or a host that
 *   is neither an IP address nor a DNS name
 */
export function parseHealthAddress(value: string): ListenAddress {
  const flag = '--health-address';
  const m = /^(?:\[([^\]]*)\]|([^:[\]]*)):([^:]*)$/.exec(value);
  if (!m)
    throw new UsageError(`${flag}: expected HOST:PORT, [IPv6]:PORT or :PORT, got ${JSON.stringify(value)}`);
  const host = m[1] ?? m[2] ?? '';
  if (m[1] !== undefined && isIP(host) !== 6)
    throw new UsageError(`${flag}: ${JSON.stringify(host)} in brackets must be an IPv6 address`);
  if (m[2] !== undefined && host !== '' && isIP(host) === 0 && !HOSTNAME.test(host))
    throw new UsageError(`${flag}: ${JSON.stringify(host)} is neither an IP address nor a host name`);
  return { host: host === '' ? '0.0.0.0' : host, port: port(m[3]!, flag) };
}

/**
 * The health server's address from the two flags and the environment.
 * @throws UsageError when both flags are given, or as {@link parseHealthAddress}
 */
export function healthAddress(
  flags: { healthAddress?: string; healthPort?: string },
  env: NodeJS.ProcessEnv,
): ListenAddress {
  if (flags.healthAddress !== undefined && flags.healthPort !== undefined)
    throw new UsageError('--health-address and --health-port: give one (--health-address HOST:PORT)');
  if (flags.healthAddress !== undefined) return parseHealthAddress(flags.healthAddress);
  return {
    host: defaultHealthHost(env),
    port: flags.healthPort === undefined ? DEFAULT_HEALTH_PORT : port(flags.healthPort, '--health-port'),
  };
}

/** `127.0.0.1:8080`, `[::1]:8080`: how a log line or `--help` shows an address. */
export function formatAddress(a: ListenAddress): string {
  return `${isIP(a.host) === 6 ? `[${a.host}]` : a.host}:${a.port}`;
}
