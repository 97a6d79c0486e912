// The server of a port with TLS-family listeners (HTTPS, TLS passthrough, TLS terminate, any mix
// of them). It reads each connection's ClientHello without terminating TLS, and the server name in
// it selects the listener as the core's matcher does: an HTTPS listener's connection goes to the
// HTTPS server (which terminates and routes HTTP), a TLSRoute's connection is spliced to the chosen
// backend's endpoint - as it came (Passthrough) or decrypted with the listener's certificate
// (Terminate). No listener for the name, no route, or an unusable backend's share: refused.
import net from 'node:net';
import tls from 'node:tls';
import type { CompiledListenerTLS } from '../core/compile/types';
import { parseClientHello } from './client-hello';
import { listenOn, listenerContext, type ClientValidation, type ContextCache, type PortServer } from './listener-servers';
import { chooseStream, countConnection, logStream, reset, splice, type StreamDeps } from './streams';
import { originateTLS } from './backend-tls';

/** How long a connection may take to send its ClientHello. */
const HELLO_TIMEOUT_MS = 10_000;

type HttpsServer = PortServer & { accept(socket: net.Socket): void };

/**
 * `makeHttps` makes the HTTPS server for a kind of client validation; one of each kind in use on
 * the port is made when first needed, so that the listener's table, not the port, says whether a
 * client certificate is asked for.
 */
export function tlsFrontServer(deps: StreamDeps, gateway: string, port: number, makeHttps: (validation: ClientValidation) => HttpsServer): PortServer {
  const sockets = new Set<net.Socket>();
  const httpsServers = new Map<ClientValidation, HttpsServer>();
  const https = (validation: ClientValidation) => {
    let server = httpsServers.get(validation);
    if (!server) httpsServers.set(validation, (server = makeHttps(validation)));
    return server;
  };
  const contexts: ContextCache = new WeakMap();
  const server = net.createServer({ allowHalfOpen: true, noDelay: true }, (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => reset(socket), HELLO_TIMEOUT_MS);
    socket.once('close', () => clearTimeout(timer));
    const onData = (chunk: Buffer) => {
      chunks.push(chunk);
      const head = chunks.length === 1 ? chunk : Buffer.concat(chunks);
      const hello = parseClientHello(head);
      if (hello.state === 'more') return;
      clearTimeout(timer);
      socket.off('data', onData);
      socket.pause();
      if (hello.state === 'invalid') {
        deps.log.error({ gateway, port, error: hello.reason }, 'TLS connection refused');
        return reset(socket);
      }
      dispatch(socket, head, hello.serverName);
    };
    socket.on('data', onData);
  });

  function dispatch(socket: net.Socket, head: Buffer, serverName: string): void {
    const c = chooseStream(deps, gateway, port, 'TLS', serverName);
    const listener = c?.decision.listener ? c.served.table.listeners.find((l) => l.port === port && l.name === c.decision.listener) : undefined;
    if (c && listener?.protocol === 'HTTPS') {
      // the HTTPS server terminates it: it reads the ClientHello again, from the start
      // (and takes the socket's handle over: the socket itself is not resumed)
      socket.unshift(head);
      https(clientValidationOf(listener.tls)).accept(socket);
      return;
    }
    if (!c || !listener || !c.endpoint) {
      countConnection(deps, gateway, c, 'TLS', 'refused');
      return reset(socket);
    }
    countConnection(deps, gateway, c, 'TLS', 'forwarded');
    if (listener.tls?.mode === 'Passthrough') {
      splice(deps, socket, c.endpoint, head, (fields) => logStream(deps, gateway, c, 'TLS passthrough', { sni: serverName, ...fields }));
      socket.resume();
      return;
    }
    const ctx = listenerContext(c.served, listener, contexts);
    if (ctx instanceof Error) {
      deps.log.error({ gateway, port, listener: listener.name, error: ctx.message }, 'TLS connection refused');
      return reset(socket);
    }
    socket.unshift(head);
    const secure = new tls.TLSSocket(socket, { isServer: true, secureContext: ctx });
    const endpoint = c.endpoint;
    const originate = c.decision.target ? originateTLS(c.served, c.decision.target) : undefined;
    secure.once('secure', () => splice(deps, secure, endpoint, undefined, (fields) => logStream(deps, gateway, c, 'TLS terminate', { sni: serverName, ...fields }), originate));
    secure.on('error', () => socket.destroy());
  }

  return {
    kind: 'tls',
    listen: (p, host) => listenOn(server, p, host),
    close() {
      server.close();
      for (const h of httpsServers.values()) h.close();
    },
    closeIdleConnections() {
      for (const h of httpsServers.values()) h.closeIdleConnections();
    },
    closeAllConnections() {
      for (const s of sockets) s.destroy();
      for (const h of httpsServers.values()) h.closeAllConnections();
    },
  };
}

/** The client validation a listener's table entry asks for: none without a usable CA bundle. */
function clientValidationOf(t: CompiledListenerTLS | undefined): ClientValidation {
  if (!t?.caBundle) return 'none';
  return t.clientValidationMode === 'AllowInsecureFallback' ? 'AllowInsecureFallback' : 'AllowValidOnly';
}
