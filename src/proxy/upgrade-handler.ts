// An HTTP/1.1 Upgrade (WebSocket) through the proxy: the table decides it as it decides any request
// (matching, header filters, rewrites, weights); a forwarded one is written to the chosen endpoint
// with its Upgrade kept, and from then on the two connections are spliced, byte for byte, both ways.
// A spliced connection belongs to neither table: a swap leaves it alone, and it ends when either
// side closes (or the proxy stops).
import net from 'node:net';
import tls from 'node:tls';
import { originateTLS } from './backend-tls';
import type http from 'node:http';
import { decide } from '../core/resolve';
import { authorityOf, endpointOf, flatHeaders, requestId, routeLabel, splitUrl } from './http-common';
import type { HandlerDeps } from './handler-deps';
import type { PortKind } from './listener-servers';

const REASONS: Record<number, string> = { 404: 'Not Found', 421: 'Misdirected Request', 500: 'Internal Server Error', 502: 'Bad Gateway', 503: 'Service Unavailable' };

/** Answers on a raw socket, as the HTTP server no longer does once a request asks to upgrade. */
function answer(socket: net.Socket, code: number, headers: Record<string, string> = {}, body = ''): void {
  const lines = [`HTTP/1.1 ${code} ${REASONS[code] ?? ''}`, 'connection: close', `content-length: ${Buffer.byteLength(body)}`, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)];
  socket.end(`${lines.join('\r\n')}\r\n\r\n${body}`);
}

export interface UpgradeDeps extends HandlerDeps {
  /** spliced connections, ended when the proxy stops */
  tunnels: Set<net.Socket>;
}

export function upgradeHandler(deps: UpgradeDeps, gateway: string, port: number, kind: PortKind) {
  return (req: http.IncomingMessage, socket: net.Socket, head: Buffer): void => {
    const started = performance.now();
    socket.on('error', () => undefined);
    const id = requestId(req.headers['x-request-id']);
    let listener = '';
    let route = '';
    const done = (code: number | string) => {
      deps.metrics.requests.inc({ gateway, listener, route, code: String(code) });
      deps.log.request({ id, gateway, listener, route, method: req.method, path: req.url, host: authorityOf(req), protocol: `HTTP/${req.httpVersion}`, upgrade: req.headers.upgrade, code, ms: Math.round((performance.now() - started) * 10) / 10 });
    };
    const served = deps.tables.get(gateway)?.served;
    if (!served) {
      done(503);
      return answer(socket, 503, { 'retry-after': '1' }, 'no route table yet\n');
    }
    const [path, rawQuery] = splitUrl(req.url ?? '/');
    const headers = flatHeaders(req);
    const d = decide(served.table, {
      protocol: kind === 'https' ? 'HTTPS' : 'HTTP', port, hostname: authorityOf(req), path, method: req.method ?? 'GET', headers,
      ...(kind === 'https' ? { sni: (socket as net.Socket & { servername?: string }).servername ?? '' } : {}),
      ...(rawQuery !== undefined ? { rawQuery } : {}),
    }, { random: Math.random(), maxExplainedCandidates: 0 });
    listener = d.listener ?? '';
    route = routeLabel(d);
    if (d.connectionRejected) {
      done('rejected');
      return void socket.destroy();
    }
    // an upgrade is not put to an authorization server yet: refused rather than let through unasked
    if (d.externalAuthConfig) {
      done(403);
      return answer(socket, 403, { 'content-type': 'text/plain' }, 'upgrades are not authorized through an ExternalAuth filter by this proxy\n');
    }
    if (!d.forwarded || !d.target) {
      done(d.statusCode ?? 500);
      return answer(socket, d.statusCode ?? 500, d.responseHeaders ?? {});
    }
    const ep = endpointOf(d.target);
    if (!ep) {
      done(503);
      return answer(socket, 503, {}, 'the backend has no endpoints\n');
    }
    const out: Record<string, string> = { ...(d.requestHeaders ?? {}) };
    out.host = d.rewrite?.hostname ?? authorityOf(req);
    out['x-request-id'] = id;
    out['x-forwarded-for'] = `${typeof req.headers['x-forwarded-for'] === 'string' ? `${req.headers['x-forwarded-for']}, ` : ''}${socket.remoteAddress ?? ''}`;
    out['x-forwarded-proto'] ??= kind;
    out.connection = 'Upgrade';
    out.upgrade = String(req.headers.upgrade ?? '');
    const outPath = (d.rewrite?.path ?? path) + (rawQuery !== undefined ? `?${rawQuery}` : '');
    // wss: a backend with TLS to originate (BackendTLSPolicy) is upgraded over TLS
    const originate = originateTLS(served, d.target);
    const upstream: net.Socket = originate
      ? tls.connect({ host: ep.address, port: ep.port, servername: originate.servername, ca: originate.ca, cert: originate.cert, key: originate.key, checkServerIdentity: originate.checkServerIdentity, ALPNProtocols: ['http/1.1'] })
      : net.connect(ep.port, ep.address);
    deps.tunnels.add(socket);
    deps.tunnels.add(upstream);
    const end = () => {
      deps.tunnels.delete(socket);
      deps.tunnels.delete(upstream);
      socket.destroy();
      upstream.destroy();
    };
    let logged = false;
    upstream.on(originate ? 'secureConnect' : 'connect', () => {
      upstream.write(`${req.method} ${outPath} HTTP/1.1\r\n${Object.entries(out).map(([k, v]) => `${k}: ${v}`).join('\r\n')}\r\n\r\n`);
      if (head.length) upstream.write(head);
      socket.pipe(upstream);
      upstream.pipe(socket);
    });
    upstream.once('data', (chunk: Buffer) => {
      // the backend's status line: 101 when it took the upgrade
      logged = true;
      done(Number(/^HTTP\/1\.[01] (\d{3})/.exec(chunk.toString('latin1', 0, 16))?.[1] ?? 0) || 'unknown');
    });
    upstream.on('error', (e) => {
      if (!logged) {
        logged = true;
        done(502);
        deps.tunnels.delete(upstream);
        upstream.off('close', end);
        return answer(socket, 502, {}, `the backend could not be reached (${(e as NodeJS.ErrnoException).code ?? e.message})\n`);
      }
      end();
    });
    upstream.on('close', end);
    socket.on('close', end);
  };
}
