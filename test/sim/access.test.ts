/**
 * Who may talk to the simulated cluster, over HTTP and TLS (issue 29 item 8: it took any request):
 * every API request carries the kubeconfig's bearer token (401 `Status` otherwise, as
 * kube-apiserver answers), every request names an address it listens on in its Host header (403
 * otherwise: DNS rebinding), and the kubeconfig's TLS endpoint lets kubectl and client-node send
 * the token. Health probes and extra routes (dcgm-exporter pages) need no token, but the Host.
 */
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { hostname } from 'node:os';
import { checkServerIdentity, type PeerCertificate } from 'node:tls';
import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimCluster, type SimCluster } from '../../src/sim/index.js';

let sim: SimCluster;

beforeAll(async () => {
  sim = await startSimCluster({
    tickMs: 60_000,
    routes: [
      (_req, res, url) => {
        if (url.pathname !== '/dcgm/targets') return false;
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('[]');
        return true;
      },
    ],
  });
});
afterAll(() => sim?.close());

interface Answer {
  status: number;
  body: Record<string, unknown>;
}

/** One request with exactly these headers (a Host header only when `host` is given). */
function raw(path: string, headers: Record<string, string>, host?: string, tls = false): Promise<Answer> {
  const base = new URL(tls ? sim.tlsUrl : sim.url);
  const send = tls ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(
      {
        hostname: base.hostname,
        port: base.port,
        path,
        headers: { ...headers, ...(host !== undefined ? { host } : {}) },
        setHost: false,
        // The certificate is checked against the address connected to, whatever Host is sent.
        ...(tls
          ? {
              ca: sim.ca,
              checkServerIdentity: (_: string, c: PeerCertificate) => checkServerIdentity(base.hostname, c),
            }
          : {}),
      },
      (res) => {
        let text = '';
        res.on('data', (d: Buffer) => (text += d.toString()));
        res.on('end', () => {
          let body: Record<string, unknown>;
          try {
            body = JSON.parse(text) as Record<string, unknown>;
          } catch {
            body = { text };
          }
          resolve({ status: res.statusCode ?? 0, body });
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}
const here = () => `127.0.0.1:${new URL(sim.url).port}`;
const admin = () => ({ authorization: `Bearer ${sim.token}` });

describe('the bearer token', () => {
  it.each([
    ['no Authorization header', {}],
    ['a wrong token', { authorization: 'Bearer not-the-token' }],
    ['the token with one character more', { authorization: 'Bearer gpuops-sim0' }],
    ['the token with one character less', { authorization: 'Bearer gpuops-si' }],
    ['an empty bearer token', { authorization: 'Bearer ' }],
    ['Basic auth with the token as password', { authorization: 'Basic YWRtaW46Z3B1b3BzLXNpbQ==' }],
  ])('%s: 401 and the Status kube-apiserver sends', async (_, headers) => {
    const a = await raw('/api/v1/nodes', headers, here());
    expect(a).toEqual({
      status: 401,
      body: {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: 'Unauthorized',
        reason: 'Unauthorized',
        code: 401,
      },
    });
  });

  it.each([
    ['the kubeconfig token', 'Bearer gpuops-sim'],
    ['the scheme in lower case', 'bearer gpuops-sim'],
  ])('%s: 200', async (_, authorization) => {
    const a = await raw('/api/v1/nodes', { authorization }, here());
    expect(a.status).toBe(200);
    expect(a.body.kind).toBe('NodeList');
  });

  it.each(['/version', '/api', '/apis', '/openapi/v3', '/api/v1/namespaces/default/pods', '/no/such/path'])(
    '%s needs it too (401 without, not 200 or 404)',
    async (path) => {
      expect((await raw(path, {}, here())).status).toBe(401);
      expect((await raw(path, admin(), here())).status).not.toBe(401);
    },
  );

  it.each(['/healthz', '/livez', '/readyz', '/dcgm/targets'])(
    '%s answers without a token (probes, the dcgm-exporter pages)',
    async (path) => expect((await raw(path, {}, here())).status).toBe(200),
  );
});

describe('the Host header (DNS rebinding)', () => {
  const port = () => new URL(sim.url).port;
  it.each([
    ['another name', () => `evil.example:${port()}`],
    ['a name that starts with the address', () => `127.0.0.1.evil.example:${port()}`],
    ['a name that starts with localhost', () => `localhost.evil.example:${port()}`],
    ['an address it does not listen on', () => `[::1]:${port()}`],
  ])('%s: 403 Forbidden, with the token', async (_, host) => {
    for (const path of ['/api/v1/nodes', '/healthz', '/dcgm/targets']) {
      const a = await raw(path, admin(), host());
      expect(a.status, path).toBe(403);
      expect(a.body).toMatchObject({ kind: 'Status', reason: 'Forbidden', code: 403 });
      expect(a.body.message).toContain('is not an address this server listens on (127.0.0.1, localhost)');
    }
  });

  it('no Host header: refused (400 from the HTTP server, which requires one)', async () => {
    expect((await raw('/api/v1/nodes', admin())).status).toBe(400);
  });

  it.each([
    ['its address and port', () => `127.0.0.1:${port()}`],
    ['localhost', () => `localhost:${port()}`],
    ['LOCALHOST with a trailing dot', () => `LOCALHOST.:${port()}`],
    ['its address through a proxy on another port', () => '127.0.0.1:8001'],
  ])('%s: answered', async (_, host) => {
    expect((await raw('/api/v1/nodes', admin(), host())).status).toBe(200);
  });
});

describe('TLS on the same port (kubectl sends a token only over TLS)', () => {
  it('answers https with the certificate the kubeconfig trusts, and checks the token there too', async () => {
    expect(sim.tlsUrl).toBe(sim.url.replace('http://', 'https://'));
    expect((await raw('/api/v1/nodes', admin(), here(), true)).status).toBe(200);
    expect((await raw('/api/v1/nodes', {}, here(), true)).status).toBe(401);
    expect((await raw('/api/v1/nodes', admin(), `evil.example:${new URL(sim.url).port}`, true)).status).toBe(
      403,
    );
  });

  it('client-node: the kubeconfig works; the same kubeconfig with a wrong token gets 401', async () => {
    const ok = new k8s.KubeConfig();
    ok.loadFromString(sim.kubeconfig());
    expect(ok.getCurrentCluster()?.server).toBe(sim.tlsUrl);
    const ns = await ok.makeApiClient(k8s.CoreV1Api).readNamespace({ name: 'default' });
    expect(ns.metadata?.name).toBe('default');
    const wrong = new k8s.KubeConfig();
    wrong.loadFromString(sim.kubeconfigWithToken('gpuops-sim-wrong'));
    await expect(wrong.makeApiClient(k8s.CoreV1Api).readNamespace({ name: 'default' })).rejects.toMatchObject(
      {
        code: 401,
      },
    );
  });
});

describe('options', () => {
  it('a chosen token: the kubeconfig holds it, the default one is refused', async () => {
    const other = await startSimCluster({ token: 'chosen-0123', tickMs: 60_000 });
    try {
      const host = new URL(other.url).host;
      const ask = (authorization: string) =>
        fetch(`${other.url}/api/v1/nodes`, { headers: { authorization, host } }).then((r) => r.status);
      expect(other.kubeconfig()).toContain('token: chosen-0123');
      expect(await ask('Bearer chosen-0123')).toBe(200);
      expect(await ask('Bearer gpuops-sim')).toBe(401);
    } finally {
      await other.close();
    }
  });

  it('on a wildcard address it answers the machine name and its interface addresses, not other names', async () => {
    const wide = await startSimCluster({ host: '0.0.0.0', tickMs: 60_000 });
    try {
      expect(wide.allowedHosts).toEqual(
        expect.arrayContaining(['0.0.0.0', '127.0.0.1', 'localhost', hostname().toLowerCase()]),
      );
      const port = new URL(wide.url).port;
      const ask = (host: string) =>
        new Promise<number>((resolve, reject) => {
          const req = httpRequest(
            {
              hostname: '127.0.0.1',
              port,
              path: '/api/v1/nodes',
              setHost: false,
              headers: { host, authorization: 'Bearer gpuops-sim' },
            },
            (res) => (res.resume(), resolve(res.statusCode ?? 0)),
          );
          req.on('error', reject);
          req.end();
        });
      expect(await ask(`${hostname()}:${port}`)).toBe(200);
      expect(await ask(`evil.example:${port}`)).toBe(403);
    } finally {
      await wide.close();
    }
  });

  it('refuses a token that is no bearer token before it listens', async () => {
    await expect(startSimCluster({ token: 'two words' })).rejects.toThrow(/printable ASCII/);
  });
});
