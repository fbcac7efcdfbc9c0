/**
 * A plain HTTP proxy in front of the simulated API server that can fail the way a proxy or load
 * balancer does: `silence()` holds every watch stream open and forwards nothing more (those open
 * now and those opened later answer their headers, then nothing), `holdLists` leaves lists
 * unanswered too, `refuseWatches` answers watches 503, and `cut()` resets every open stream.
 */
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** A started proxy (see the module comment). */
export interface StallingProxy {
  /** `http://127.0.0.1:PORT`. */
  url: string;
  silence(on: boolean): void;
  holdLists: boolean;
  refuseWatches: boolean;
  /** Watch requests received so far, with when (ms since the epoch). */
  watches: number[];
  /** Resets every open client connection; returns how many. */
  cut(): number;
  close(): Promise<void>;
}

/** Starts a proxy forwarding to `upstream` (`http://host:port`). */
export async function startStallingProxy(upstream: string): Promise<StallingProxy> {
  const target = new URL(upstream);
  const sockets = new Set<Socket>();
  const held = new Set<ServerResponse>();
  const streams = new Set<{ up: IncomingMessage; down: ServerResponse }>();
  let silent = false;
  const state = { holdLists: false, refuseWatches: false };
  const watches: number[] = [];

  const hold = (res: ServerResponse) => {
    held.add(res);
    res.on('close', () => held.delete(res));
  };
  const server = createServer((req, res) => {
    const watch = new URL(req.url ?? '/', 'http://x').searchParams.get('watch') === 'true';
    if (watch) watches.push(Date.now());
    if (watch && state.refuseWatches) {
      res.writeHead(503, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ kind: 'Status', code: 503, message: 'the proxy refuses watches' }));
      return;
    }
    if (watch && silent) {
      res.writeHead(200, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' });
      res.flushHeaders();
      return hold(res);
    }
    if (!watch && state.holdLists) return hold(res);
    const up = request(
      { host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers },
      (upRes) => {
        res.writeHead(upRes.statusCode ?? 502, upRes.headers);
        if (!watch) return void upRes.pipe(res);
        const s = { up: upRes, down: res };
        streams.add(s);
        upRes.on('data', (chunk: Buffer) => {
          if (!silent) res.write(chunk);
        });
        upRes.on('end', () => {
          streams.delete(s);
          if (!silent) res.end();
        });
        res.on('close', () => {
          streams.delete(s);
          upRes.destroy();
        });
      },
    );
    up.on('error', () => res.destroy());
    req.pipe(up);
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    silence: (on) => {
      silent = on;
    },
    get holdLists() {
      return state.holdLists;
    },
    set holdLists(v: boolean) {
      state.holdLists = v;
    },
    get refuseWatches() {
      return state.refuseWatches;
    },
    set refuseWatches(v: boolean) {
      state.refuseWatches = v;
    },
    watches,
    cut: () => {
      const n = sockets.size;
      for (const s of sockets) s.destroy();
      return n;
    },
    close: async () => {
      for (const s of sockets) s.destroy();
      for (const r of held) r.destroy();
      for (const s of streams) s.up.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
