/**
 * One port that speaks plain HTTP and TLS, as the simulated API server needs: kubectl (client-go)
 * sends a bearer token only over TLS (`IsConfigTransportTLS`, kubernetes/kubectl#744), so the
 * kubeconfig points at `https://`; curl, Prometheus scraping the dcgm-exporter pages and tests
 * keep plain `http://`. The first byte of a connection decides (0x16, a TLS handshake record, or
 * anything else), as httpolyglot does; both answer with the same request handler.
 */
import { createServer as createHttp, type RequestListener, type Server as HttpServer } from 'node:http';
import { createServer as createHttps, type Server as HttpsServer } from 'node:https';
import { createServer as createTcp, type AddressInfo, type Server, type Socket } from 'node:net';
import type { ServingCert } from './tls-cert.js';

/** First byte of a TLS record carrying a handshake (RFC 8446 5.1, ContentType handshake = 22). */
const TLS_HANDSHAKE = 0x16;

/** A listener serving `handler` over HTTP and HTTPS on one port. */
export class DualProtocolListener {
  private readonly plain: HttpServer;
  private readonly secure: HttpsServer;
  private readonly tcp: Server;
  private readonly sockets = new Set<Socket>();

  constructor(handler: RequestListener) {
    this.plain = createHttp(handler);
    this.secure = createHttps({}, handler);
    this.tcp = createTcp((socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
      socket.on('error', () => socket.destroy());
      this.route(socket);
    });
  }

  private route(socket: Socket): void {
    const first = socket.read(1) as Buffer | null;
    if (first === null) {
      socket.once('readable', () => this.route(socket));
      return;
    }
    socket.unshift(first);
    (first[0] === TLS_HANDSHAKE ? this.secure : this.plain).emit('connection', socket);
  }

  /** Listens; resolves with the bound address. @throws Error when the port is taken */
  listen(port: number, host: string): Promise<AddressInfo> {
    return new Promise((resolve, reject) => {
      this.tcp.once('error', reject);
      this.tcp.listen(port, host, () => {
        this.tcp.off('error', reject);
        resolve(this.tcp.address() as AddressInfo);
      });
    });
  }

  /** Sets the TLS key and certificate (before the first TLS connection). */
  useCert(cert: ServingCert): void {
    this.secure.setSecureContext({ key: cert.key, cert: cert.cert });
  }

  /** Stops listening and ends every open connection (watch streams included). */
  close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    return new Promise((resolve) => this.tcp.close(() => resolve()));
  }
}
