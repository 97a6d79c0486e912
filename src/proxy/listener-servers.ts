// The server behind one bound port. HTTP ports speak HTTP/1.1 and h2c (HTTP/2 with prior
// knowledge, told apart by its connection preface); HTTPS ports terminate TLS with the certificate
// of the listener the SNI selects (read from the table the Gateway serves at handshake time) and
// offer h2 and http/1.1 by ALPN.
import http from 'node:http';
import http2 from 'node:http2';
import net from 'node:net';
import tls from 'node:tls';
import { selectListener } from '../core/resolve';
import type { CompiledListener } from '../core/compile/types';
import type { ServedTable, Tables } from './tables';

/** http: HTTP/1.1 and h2c; https: TLS terminated for HTTP (behind the TLS front); tls: the TLS front, by SNI; tcp, udp: streams. */
export type PortKind = 'http' | 'https' | 'tls' | 'tcp' | 'udp';
export type RequestHandler = (req: http.IncomingMessage | http2.Http2ServerRequest, res: http.ServerResponse | http2.Http2ServerResponse) => void;
/** An HTTP/1.1 request asking to upgrade (WebSocket): the socket is the handler's from then on. */
export type UpgradeHandler = (req: http.IncomingMessage, socket: net.Socket, head: Buffer) => void;

/** What a listener port needs: its servers, closed together. */
export interface PortServer {
  kind: PortKind;
  listen(port: number, host: string): Promise<void>;
  /** stops accepting; connections finish on their own */
  close(): void;
  closeIdleConnections(): void;
  closeAllConnections(): void;
}

const H2_PREFACE = Buffer.from('PRI * HTTP/2.0\r\n');

export function listenOn(server: net.Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (e: NodeJS.ErrnoException) => {
      server.off('listening', onListening);
      reject(new Error(`cannot listen on ${host}:${port}: ${e.code ?? e.message}`));
    };
    const onListening = () => {
      server.off('error', onError);
      resolve();
    };
    server.once('error', onError);
    server.once('listening', onListening);
    server.listen(port, host);
  });
}

/** HTTP/1.1 and h2c on one port: the first bytes of a connection say which. */
export function plainServer(handler: RequestHandler, upgrade?: UpgradeHandler): PortServer {
  const h1 = http.createServer(handler as http.RequestListener);
  if (upgrade) h1.on('upgrade', upgrade);
  h1.keepAliveTimeout = 65_000;
  const h2 = http2.createServer({}, handler as (req: http2.Http2ServerRequest, res: http2.Http2ServerResponse) => void);
  const sessions = new Set<http2.ServerHttp2Session>();
  h2.on('session', (s) => {
    sessions.add(s);
    s.on('close', () => sessions.delete(s));
  });
  const front = net.createServer((socket) => {
    socket.once('readable', () => {
      const head = socket.read(Math.min(H2_PREFACE.length, socket.readableLength)) as Buffer | null;
      if (head) socket.unshift(head);
      // "PRI" starts no HTTP/1 method in use: three bytes of the preface are enough to tell
      const isH2 = head !== null && head.length >= 3 && head.equals(H2_PREFACE.subarray(0, head.length));
      (isH2 ? h2 : h1).emit('connection', socket);
    });
  });
  return {
    kind: 'http',
    listen: (port, host) => listenOn(front, port, host),
    close() {
      front.close();
      h1.close();
      for (const s of sessions) s.close();
    },
    closeIdleConnections: () => h1.closeIdleConnections(),
    closeAllConnections() {
      h1.closeAllConnections();
      for (const s of sessions) s.destroy();
    },
  };
}

/** The certificate of the listener `name` selects on `port` of the table, as a TLS context. */
export function contextFor(served: ServedTable, port: number, name: string, cache: ContextCache): tls.SecureContext | Error {
  const listeners = served.table.listeners.filter((l) => l.port === port && l.valid && l.protocol === 'HTTPS');
  const listener: CompiledListener | undefined = selectListener(listeners, name.toLowerCase());
  if (!listener) return new Error(`no listener on port ${port} accepts the server name ${name || '(none)'}`);
  return listenerContext(served, listener, cache);
}

export type ContextCache = WeakMap<ServedTable, Map<string, tls.SecureContext>>;

/** The TLS context of a listener's certificate (its first certificateRef), made once per table. */
export function listenerContext(served: ServedTable, listener: CompiledListener, cache: ContextCache): tls.SecureContext | Error {
  let byListener = cache.get(served);
  if (!byListener) cache.set(served, (byListener = new Map()));
  // listener names are unique per Gateway or ListenerSet only
  const id = listener.listenerSet ? `${listener.listenerSet.namespace}/${listener.listenerSet.name}/${listener.name}` : listener.name;
  const hit = byListener.get(id);
  if (hit) return hit;
  const ref = listener.tls?.certificateRefs?.[0];
  const secret = ref && served.secrets.find((s) => s.namespace === ref.namespace && s.name === ref.name);
  const crt = secret?.data?.['tls.crt'];
  const key = secret?.data?.['tls.key'];
  if (!crt || !key) return new Error(`listener ${listener.name} has no certificate in the snapshot`);
  try {
    // the CA bundle of frontend validation: what client certificates are verified against, when the
    // server asks for one. With AllowInsecureFallback any certificate is let in, and none is verified:
    // a certificate whose issuer has the bundle's CA's name but another key fails its signature check,
    // and OpenSSL leaves that error behind, which then ends the connection the fallback lets in
    const ca = listener.tls?.clientValidationMode === 'AllowInsecureFallback' ? undefined : listener.tls?.caBundle;
    const ctx = tls.createSecureContext({ cert: Buffer.from(crt, 'base64'), key: Buffer.from(key, 'base64'), ...(ca ? { ca } : {}) });
    byListener.set(id, ctx);
    return ctx;
  } catch (e) {
    return new Error(`listener ${listener.name}: ${(e as Error).message}`);
  }
}

/**
 * How an HTTPS server treats client certificates (Gateway spec.tls.frontend validation): not asked
 * for (none), asked for and required to chain to the listener's CA bundle (AllowValidOnly: without
 * one the handshake fails), or asked for and not required (AllowInsecureFallback).
 */
export type ClientValidation = 'none' | 'AllowValidOnly' | 'AllowInsecureFallback';

/** TLS terminated with the SNI's listener's certificate; h2 or http/1.1 by ALPN. */
export function tlsServer(handler: RequestHandler, tables: Tables, gateway: string, port: number, validation: ClientValidation = 'none', upgrade?: UpgradeHandler): PortServer & { accept(socket: net.Socket): void } {
  const cache: ContextCache = new WeakMap();
  const server = http2.createSecureServer({
    allowHTTP1: true,
    ...(validation !== 'none' ? { requestCert: true, rejectUnauthorized: validation === 'AllowValidOnly' } : {}),
    SNICallback: (name, cb) => {
      const served = tables.get(gateway)?.served;
      if (!served) return cb(new Error('no route table yet'), undefined);
      const ctx = contextFor(served, port, name ?? '', cache);
      if (ctx instanceof Error) cb(ctx, undefined);
      else cb(null, ctx);
    },
  }, handler as (req: http2.Http2ServerRequest, res: http2.Http2ServerResponse) => void);
  if (upgrade) server.on('upgrade', upgrade);
  const sockets = new Set<net.Socket>();
  server.on('secureConnection', (s: tls.TLSSocket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  return {
    kind: 'https',
    listen: (p, host) => listenOn(server, p, host),
    /** a connection another server accepted (the TLS front), its ClientHello still unread */
    accept: (socket) => void server.emit('connection', socket),
    close: () => void server.close(),
    closeIdleConnections: () => undefined,
    closeAllConnections() {
      for (const s of sockets) s.destroy();
    },
  };
}
