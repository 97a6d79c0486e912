// A conformance request entry sent as real traffic (test/corpora/conformance/README.md, requests[]):
// HTTP/1.1, HTTPS (SNI, ALPN h2 or http/1.1), gRPC unary calls over h2c, h2c with prior knowledge
// and WebSocket, to the local port a proxy binds for the Gateway's listener port; and what the client
// observed, checked against the entry's `expect` the way upstream's comparators do.
import http from 'node:http';
import http2 from 'node:http2';
import net from 'node:net';
import tls from 'node:tls';
import dgram from 'node:dgram';
import { randomBytes } from 'node:crypto';
import { execFile, execFileSync } from 'node:child_process';
import type { PodAnswer } from './echo-pod';
import { readFrame, writeFrame } from './echo-pod';

export interface Observed {
  /** no HTTP answer: why (refused, reset, handshake failed) */
  rejected?: string;
  status?: number;
  /** response headers, lower-case names, several values joined with "," */
  headers: Record<string, string>;
  echo?: PodAnswer;
  grpcStatus?: number;
  /** WebSocket: every frame came back unchanged */
  websocketEchoed?: boolean;
  /** the answer's body as text (HTTP/1.1) */
  body?: string;
}

export interface Target {
  /** the local port the proxy listens on for the entry's listener port */
  localPort: number;
  requestId: string;
  /** the TLS material of the entry's `clientCertificate`, when it has one */
  clientCertificate?: { cert: string; key: string };
}

const TIMEOUT_MS = 10_000;
export const GRPC_CODES: Record<string, number> = { OK: 0, Cancelled: 1, Unknown: 2, InvalidArgument: 3, DeadlineExceeded: 4, NotFound: 5, PermissionDenied: 7, Unimplemented: 12, Internal: 13, Unavailable: 14 };

/** The Host a request carries: as the entry gives it, or (for "") the Gateway's address, with :port off 80/443. */
export function hostOf(r: any): string {
  if (r.host) return r.host;
  return r.port === 80 || r.port === 443 || r.port === undefined ? '127.0.0.1' : `127.0.0.1:${r.port}`;
}

export function pathOf(r: any, unique: string): string {
  const q = r.rawQuery !== undefined ? r.rawQuery : r.query ? new URLSearchParams(r.query).toString() : undefined;
  return `${r.path ?? '/'}${q ? `?${q.replaceAll('{UNIQUE_ID}', unique)}` : ''}`;
}

function headersOf(r: any, e: any, t: Target): Record<string, string> {
  const h: Record<string, string> = { 'x-request-id': t.requestId };
  for (const [k, v] of Object.entries(r.headers ?? {})) h[k.toLowerCase()] = String(v);
  const set = Object.entries(e.backendResponseHeaders ?? {}).map(([k, v]) => `${k}:${v}`);
  if (set.length) h['x-echo-set-header'] = set.join(',');
  return h;
}

function joinDistinct(d: Record<string, string[] | undefined> | http2.IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(d)) {
    if (v === undefined || k.startsWith(':')) continue;
    out[k.toLowerCase()] = Array.isArray(v) ? v.join(',') : String(v);
  }
  return out;
}

function parseEcho(body: Buffer): PodAnswer | undefined {
  try {
    const j = JSON.parse(body.toString('utf8'));
    return j && typeof j === 'object' && typeof j.pod === 'string' ? j : undefined;
  } catch {
    return undefined;
  }
}

const rejected = (why: string): Observed => ({ rejected: why, headers: {} });

export async function send(r: any, e: any, t: Target, unique: string): Promise<Observed> {
  switch (r.protocol) {
    case 'http': return h1(r, e, t, unique, undefined);
    case 'https': return httpsRequest(r, e, t, unique);
    case 'grpc': return h2(r, e, t, unique, true);
    case 'h2c': return h2(r, e, t, unique, false);
    case 'websocket': return websocket(r, t);
    // a TLSRoute or TCPRoute connection carries an HTTP/1.1 request, which the echo pods answer
    case 'tls': return httpsRequest({ ...r, host: r.host ?? r.sni, path: r.path ?? '/', method: r.method ?? 'GET' }, e, t, unique);
    case 'tcp': return h1({ ...r, host: r.host ?? '127.0.0.1', path: r.path ?? '/', method: r.method ?? 'GET' }, e, t, unique, undefined);
    case 'udp': return datagram(t);
    default: throw new Error(`protocol ${r.protocol} is not sent by this runner`);
  }
}

function h1(r: any, e: any, t: Target, unique: string, socket: tls.TLSSocket | undefined): Promise<Observed> {
  return new Promise((resolve) => {
    const req = http.request({
      method: r.method ?? 'GET', path: pathOf(r, unique), headers: { host: hostOf(r), ...headersOf(r, e, t) }, timeout: TIMEOUT_MS,
      ...(socket ? { createConnection: () => socket } : { host: '127.0.0.1', port: t.localPort, agent: false }),
    }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c) => chunks.push(c));
      res.on('error', (err) => resolve(rejected(`response broken: ${err.message}`)));
      res.on('end', () => {
        const body = Buffer.concat(chunks);
        resolve({ status: res.statusCode, headers: joinDistinct(res.headersDistinct), echo: parseEcho(body), body: body.toString('utf8') });
      });
    });
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', (err) => resolve(rejected((err as NodeJS.ErrnoException).code ?? err.message)));
    req.end();
  });
}

function tlsConnect(r: any, t: Target, alpn: string[]): Promise<tls.TLSSocket | Observed> {
  return new Promise((resolve) => {
    const sni = r.sni && net.isIP(r.sni) === 0 ? r.sni : undefined;
    const socket = tls.connect({
      host: '127.0.0.1', port: t.localPort, ...(sni ? { servername: sni } : {}), ALPNProtocols: alpn, rejectUnauthorized: false,
      ...(t.clientCertificate ? { cert: t.clientCertificate.cert, key: t.clientCertificate.key } : {}),
    });
    socket.setTimeout(TIMEOUT_MS, () => socket.destroy(new Error('timed out')));
    socket.once('secureConnect', () => resolve(socket));
    socket.once('error', (err) => resolve(rejected(`TLS: ${(err as NodeJS.ErrnoException).code ?? err.message}`)));
  });
}

async function httpsRequest(r: any, e: any, t: Target, unique: string): Promise<Observed> {
  const socket = await tlsConnect(r, t, r.httpVersion === '2' ? ['h2'] : ['http/1.1']);
  if (!(socket instanceof tls.TLSSocket)) return socket;
  if (socket.alpnProtocol === 'h2') return h2(r, e, t, unique, false, socket);
  return h1(r, e, t, unique, socket);
}

function h2(r: any, e: any, t: Target, unique: string, grpc: boolean, socket?: tls.TLSSocket): Promise<Observed> {
  return new Promise((resolve) => {
    const session = http2.connect(`${socket ? 'https' : 'http'}://127.0.0.1:${t.localPort}`, socket ? { createConnection: () => socket } : {});
    const done = (o: Observed) => {
      session.close();
      session.destroy();
      resolve(o);
    };
    session.on('error', (err) => done(rejected((err as NodeJS.ErrnoException).code ?? err.message)));
    session.setTimeout(TIMEOUT_MS, () => done(rejected('timed out')));
    const req = session.request({
      ':method': grpc ? 'POST' : (r.method ?? 'GET'), ':path': pathOf(r, unique), ':authority': hostOf(r), ':scheme': socket ? 'https' : 'http',
      ...headersOf(r, e, t), ...(grpc ? { 'content-type': 'application/grpc', te: 'trailers' } : {}),
    }, { endStream: !grpc });
    let status = 0;
    let headers: Record<string, string> = {};
    let grpcStatus: number | undefined;
    const chunks: Buffer[] = [];
    req.on('response', (h) => {
      status = Number(h[':status']);
      headers = joinDistinct(h);
      if (h['grpc-status'] !== undefined) grpcStatus = Number(h['grpc-status']);
    });
    req.on('trailers', (h) => {
      if (h['grpc-status'] !== undefined) grpcStatus = Number(h['grpc-status']);
    });
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('error', (err) => done(rejected((err as NodeJS.ErrnoException).code ?? err.message)));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      // a gRPC answer's message is length-prefixed (5 bytes)
      const echo = grpc ? (body.length >= 5 ? parseEcho(body.subarray(5, 5 + body.readUInt32BE(1))) : undefined) : parseEcho(body);
      done({ status, headers, echo, ...(grpc ? { grpcStatus: grpcStatus ?? (status === 200 ? undefined : 2) } : {}) });
    });
    // an empty request message
    if (grpc) req.end(Buffer.alloc(5));
  });
}

/** One datagram from a socket of its own (a session of its own at the proxy); the pod answers with its JSON. */
function datagram(t: Target): Promise<Observed> {
  return new Promise((resolve) => {
    const sock = dgram.createSocket('udp4');
    const done = (o: Observed) => {
      clearTimeout(timer);
      sock.close();
      resolve(o);
    };
    const timer = setTimeout(() => done(rejected('no datagram came back')), 2000);
    sock.on('error', (err) => done(rejected(err.message)));
    sock.on('message', (msg) => done({ status: 200, headers: {}, echo: parseEcho(msg) }));
    sock.send(Buffer.from(t.requestId), t.localPort, '127.0.0.1');
  });
}

function websocket(r: any, t: Target): Promise<Observed> {
  return new Promise((resolve) => {
    const socket = net.connect(t.localPort, '127.0.0.1');
    const key = randomBytes(16).toString('base64');
    const messages: any[] = r.websocket?.messages ?? [];
    const want = messages.map((m) => ({ opcode: m.type === 'binary' ? 2 : 1, payload: m.type === 'binary' ? Buffer.from(m.bytes) : Buffer.from(m.data, 'utf8') }));
    let buf = Buffer.alloc(0);
    let status = 0;
    let headers: Record<string, string> = {};
    let echo = true;
    let got = 0;
    const finish = (o: Observed) => {
      socket.destroy();
      resolve(o);
    };
    socket.setTimeout(TIMEOUT_MS, () => finish(status ? { status, headers, websocketEchoed: false } : rejected('timed out')));
    socket.on('error', (err) => finish(status ? { status, headers, websocketEchoed: false } : rejected((err as NodeJS.ErrnoException).code ?? err.message)));
    socket.on('connect', () => {
      socket.write(`GET ${r.path ?? '/'} HTTP/1.1\r\nHost: ${hostOf(r)}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: ${key}\r\nSec-WebSocket-Version: 13\r\n`
        + `${r.websocket?.origin ? `Origin: ${r.websocket.origin}\r\n` : ''}X-Request-Id: ${t.requestId}\r\n\r\n`);
    });
    socket.on('data', (chunk) => {
      buf = Buffer.concat([buf, chunk]);
      if (!status) {
        const end = buf.indexOf('\r\n\r\n');
        if (end < 0) return;
        const lines = buf.subarray(0, end).toString('latin1').split('\r\n');
        status = Number(lines[0].split(' ')[1]);
        for (const l of lines.slice(1)) {
          const i = l.indexOf(':');
          if (i > 0) headers[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim();
        }
        buf = buf.subarray(end + 4);
        if (status !== 101) return finish({ status, headers });
        for (const m of want) socket.write(writeFrame(m.opcode, m.payload, true));
        if (want.length === 0) return finish({ status, headers, websocketEchoed: true });
      }
      for (;;) {
        const f = readFrame(buf);
        if (!f) return;
        buf = buf.subarray(f.length);
        const w = want[got++];
        if (!w || w.opcode !== f.opcode || !w.payload.equals(f.payload)) echo = false;
        if (got === want.length) return finish({ status, headers, websocketEchoed: echo });
      }
    });
  });
}

/** Whether the openssl command is here: it shows what Node's TLS client does not, a server's CertificateRequest. */
export const HAS_OPENSSL = (() => {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

/** Did the server ask for a client certificate during the handshake? (s_client lists the requested signature algorithms only then) */
export function certificateRequested(localPort: number, sni: string | undefined): Promise<boolean> {
  return new Promise((resolve) => {
    const child = execFile('openssl', ['s_client', '-connect', `127.0.0.1:${localPort}`, ...(sni ? ['-servername', sni] : [])], { timeout: 5000 }, (_err, stdout) => {
      resolve(/^Requested Signature Algorithms:/m.test(String(stdout)));
    });
    child.stdin?.end();
  });
}

// ---- checking ---------------------------------------------------------------------------------

const lower = (h: Record<string, unknown> | undefined) => Object.fromEntries(Object.entries(h ?? {}).map(([k, v]) => [k.toLowerCase(), v]));
/** Timeout rule (README): 408 and 504 are the same outcome. */
const sameCode = (got: number | undefined, want: number) => got === want || ((want === 408 || want === 504) && (got === 408 || got === 504));

/** What one observed answer fails of the entry's expectations (the per-request part; batches are checked apart). */
export function checkObserved(r: any, e: any, o: Observed, sent: { path: string }): string[] {
  const f: string[] = [];
  const fail = (m: string) => f.push(m);
  if (e.connectionRejected) {
    if (!o.rejected) fail(`expected the connection to be rejected, got status ${o.status}`);
    return f;
  }
  if (o.rejected) return [`no answer: ${o.rejected}`];
  const grpc = r.protocol === 'grpc';
  if (r.protocol === 'tls' || r.protocol === 'tcp' || r.protocol === 'udp') {
    if (!o.echo) return [`no backend answered (status ${o.status})`];
    if (e.backend && `${o.echo.namespace}/${o.echo.service}` !== `${e.backend.namespace}/${e.backend.name}`) fail(`served by ${o.echo.namespace}/${o.echo.service} (want ${e.backend.namespace}/${e.backend.name})`);
    return f;
  }
  const wantCodes: number[] | undefined = e.statusCodes ?? (e.statusCode !== undefined ? [e.statusCode] : undefined);
  if (wantCodes && !wantCodes.some((c) => sameCode(o.status, c))) fail(`status ${o.status} (want ${wantCodes.join('|')})`);
  if (!wantCodes && !grpc && !e.statusCodeNotIn && !e.redirect && o.status !== 200) fail(`status ${o.status} (want 200)`);
  if (e.statusCodeNotIn && (o.status === undefined || e.statusCodeNotIn.includes(o.status))) fail(`status ${o.status} (want none of ${e.statusCodeNotIn.join(', ')})`);
  // upcoming/ (#5113): the body compared exactly
  if (e.responseBody !== undefined && o.body !== e.responseBody) fail(`body ${JSON.stringify(o.body)} (want ${JSON.stringify(e.responseBody)})`);
  if (e.grpcCode !== undefined && o.grpcStatus !== GRPC_CODES[e.grpcCode]) fail(`grpc-status ${o.grpcStatus} (want ${e.grpcCode} = ${GRPC_CODES[e.grpcCode]})`);
  if (e.grpcCodeNotIn && e.grpcCodeNotIn.some((c: string) => o.grpcStatus === GRPC_CODES[c])) fail(`grpc-status ${o.grpcStatus} (want none of ${e.grpcCodeNotIn.join(', ')})`);
  const success = grpc ? o.grpcStatus === 0 : o.status === 200 || o.status === 101;

  if (e.backend && success) {
    const want = `${e.backend.namespace}/${e.backend.name}`;
    const got = o.echo ? `${o.echo.namespace}/${o.echo.service}` : r.protocol === 'websocket' ? want : 'the gateway itself';
    if (got !== want) fail(`served by ${got} (want ${want})`);
  }
  if (o.echo && success && !grpc && r.protocol !== 'websocket') {
    const asSent = sent.path;
    const want = e.rewrittenPath ?? asSent;
    const got = e.rewrittenPath !== undefined && !e.rewrittenPath.includes('?') ? o.echo.path.split('?')[0] : o.echo.path;
    if (got !== want) fail(`backend path ${o.echo.path} (want ${want})`);
    if (e.rewrittenHost !== undefined && o.echo.host !== e.rewrittenHost) fail(`backend Host ${o.echo.host} (want ${e.rewrittenHost})`);
    const h = o.echo.headers;
    for (const [k, v] of Object.entries(lower(e.requestHeaders))) if (h[k] !== v) fail(`request header ${k}=${h[k]} (want ${v})`);
    for (const k of e.absentRequestHeaders ?? []) if (k.toLowerCase() in h) fail(`request header ${k} present (${h[k.toLowerCase()]})`);
  }
  if (!o.echo && success && !grpc && r.protocol !== 'websocket' && (e.requestHeaders || e.rewrittenPath || e.rewrittenHost)) fail('no backend answered, so nothing it received can be checked');
  const ws = (s: string) => (e.ignoreWhitespaceInResponseHeaders ? s.replace(/\s+/g, '') : s);
  for (const [k, v] of Object.entries(lower(e.responseHeaders))) {
    if (o.headers[k] === undefined || ws(o.headers[k]) !== ws(String(v))) fail(`response header ${k}=${o.headers[k]} (want ${v})`);
  }
  for (const [k, vs] of Object.entries(lower(e.responseHeadersOneOf))) {
    const got = o.headers[k];
    if (got === undefined || !(vs as string[]).map(ws).includes(ws(got))) fail(`response header ${k}=${got} (want one of ${(vs as string[]).join(' | ')})`);
  }
  for (const k of e.absentResponseHeaders ?? []) if (k.toLowerCase() in o.headers) fail(`response header ${k} present (${o.headers[k.toLowerCase()]})`);
  if (e.redirect) {
    const loc = o.headers.location;
    if (!loc) fail('no Location');
    else {
      let u: URL | undefined;
      try {
        u = new URL(loc);
      } catch {
        fail(`Location ${loc} is not an absolute URL`);
      }
      if (u) {
        const scheme = u.protocol.replace(':', '');
        if (scheme !== e.redirect.scheme) fail(`redirect scheme ${scheme} (want ${e.redirect.scheme})`);
        if (u.pathname !== e.redirect.path) fail(`redirect path ${u.pathname} (want ${e.redirect.path})`);
        if (e.redirect.host !== undefined && u.hostname !== e.redirect.host) fail(`redirect host ${u.hostname} (want ${e.redirect.host})`);
        // URL drops a scheme's default port: "" means none or the default
        if (e.redirect.port !== undefined) {
          const def = scheme === 'https' ? '443' : '80';
          if ((u.port || def) !== String(e.redirect.port)) fail(`redirect port ${u.port || '(none)'} (want ${e.redirect.port})`);
        } else if (u.port !== '') fail(`redirect port ${u.port} (want none or the default)`);
      }
    }
  }
  if (e.backendProtocol === 'h2c' && success && o.echo?.protocol !== 'HTTP/2.0') fail(`the backend was spoken to in ${o.echo?.protocol ?? 'nothing'} (want h2c)`);
  if (e.websocketEcho && !o.websocketEchoed) fail('the WebSocket frames did not come back unchanged');
  return f;
}
