/**
 * A read-only Git HTTP server on loopback for Flux's source-controller, whose GitRepository
 * accepts `http(s)://` and `ssh://` URLs but not a local path: every request runs
 * `git http-backend` (Git's own smart-HTTP CGI program) on the repositories under `root`.
 * Pushes are refused (`http.receivepack` stays off, git-http-backend's default without
 * authentication): people and gpuops push to the same bare repositories on disk.
 */
import { spawn } from 'node:child_process';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A running server. */
export interface GitHttpServer {
  /** Base URL; a repository `<root>/x.git` is `<url>/x.git`. */
  url: string;
  close(): Promise<void>;
}

/** Splits CGI output into its header block and body start. */
function splitCgi(buf: Buffer): { headers: [string, string][]; status: number; rest: Buffer } | null {
  let end = buf.indexOf('\r\n\r\n');
  let sep = 4;
  if (end < 0) {
    end = buf.indexOf('\n\n');
    sep = 2;
  }
  if (end < 0) return null;
  let status = 200;
  const headers: [string, string][] = [];
  for (const line of buf.subarray(0, end).toString('latin1').split(/\r?\n/)) {
    const i = line.indexOf(':');
    if (i < 0) continue;
    const name = line.slice(0, i).trim();
    const value = line.slice(i + 1).trim();
    if (name.toLowerCase() === 'status') status = Number.parseInt(value, 10) || 500;
    else headers.push([name, value]);
  }
  return { headers, status, rest: buf.subarray(end + sep) };
}

function handle(root: string, req: IncomingMessage, res: ServerResponse): void {
  const url = new URL(req.url ?? '/', 'http://127.0.0.1');
  const child = spawn('git', ['http-backend'], {
    env: {
      ...process.env,
      GIT_PROJECT_ROOT: root,
      GIT_HTTP_EXPORT_ALL: '1',
      PATH_INFO: decodeURIComponent(url.pathname),
      QUERY_STRING: url.search.replace(/^\?/, ''),
      REQUEST_METHOD: req.method ?? 'GET',
      CONTENT_TYPE: req.headers['content-type'] ?? '',
      REMOTE_ADDR: req.socket.remoteAddress ?? '127.0.0.1',
      ...(req.headers['git-protocol'] ? { GIT_PROTOCOL: String(req.headers['git-protocol']) } : {}),
      ...(req.headers['content-encoding']
        ? { HTTP_CONTENT_ENCODING: String(req.headers['content-encoding']) }
        : {}),
    },
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  req.pipe(child.stdin);
  let head: Buffer = Buffer.alloc(0);
  let started = false;
  child.stdout.on('data', (chunk: Buffer) => {
    if (started) {
      res.write(chunk);
      return;
    }
    head = Buffer.concat([head, chunk]);
    const cgi = splitCgi(head);
    if (!cgi) return;
    started = true;
    res.writeHead(cgi.status, cgi.headers);
    res.write(cgi.rest);
  });
  child.on('close', (code) => {
    if (!started) {
      res.writeHead(500, { 'Content-Type': 'text/plain' });
      res.end(`git http-backend exited ${code}\n`);
    } else res.end();
  });
  child.on('error', () => {
    if (!res.headersSent) res.writeHead(500);
    res.end();
  });
}

/** Serves the repositories under `root` on 127.0.0.1:`port` (0: any free port). */
export async function startGitHttpServer(root: string, port = 0): Promise<GitHttpServer> {
  const server = createServer((req, res) => handle(root, req, res));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
