// One pod of a conformance backend, as upstream's echo server behaves (README "Test backends"): every
// request is answered with a JSON description of itself (method, URI with query, Host, headers,
// protocol, the pod's Service and namespace, and for TLS the SNI and the client's certificate), and
// logged, which is how a runner sees mirrored copies and counts retried attempts. Each target port is
// one loopback socket that tells the protocol from a connection's first bytes: a TLS ClientHello
// (served with the pod's certificate, h2 or http/1.1 by ALPN), the HTTP/2 preface (h2c), or HTTP/1.1
// (with WebSocket echo on Upgrade). Query parameters as upstream's: `delay=1s`; under `/retry/`
// `succeedAfter=N&responseCode=C&delayRetry=D&uuid=U` fails the first N attempts carrying U (with C,
// or by resetting the connection). `X-Echo-Set-Header: Name:value,...` sets response headers. gRPC
// calls (content-type application/grpc) are answered grpc-status 0 with the JSON as the message.
import http from 'node:http';
import http2 from 'node:http2';
import net from 'node:net';
import tls from 'node:tls';
import dgram from 'node:dgram';
import { createHash } from 'node:crypto';
import type { AddressInfo } from 'node:net';

export interface PodTLS {
  cert: string;
  key: string;
  /** PEM CA bundle: a client certificate is requested and, when one is presented, verified against it */
  clientCA?: string;
}

export interface LoggedRequest {
  /** URI with query */
  path: string;
  method: string;
  headers: Record<string, string>;
  protocol: string;
  targetPort: number;
  websocket?: boolean;
}

export interface EchoTLS {
  sni: string;
  /** SHA-256 of the client certificate presented, hex; absent when none */
  clientCertificate?: string;
  clientAuthorized?: boolean;
}

export interface PodAnswer {
  service: string;
  namespace: string;
  pod: string;
  method: string;
  path: string;
  host: string;
  /** several values of a header joined with "," in order */
  headers: Record<string, string>;
  protocol: string;
  targetPort: number;
  tls?: EchoTLS;
}

export interface EchoPod {
  name: string;
  /** target port -> the local port it listens on */
  ports: Map<number, number>;
  /** UDP target port -> the local port: each datagram is answered with the pod's JSON (service, namespace, pod) */
  udpPorts: Map<number, number>;
  log: LoggedRequest[];
  /** what it serves TLS with (changeable between requests) */
  tls?: PodTLS;
  close(): Promise<void>;
}

export interface PodOptions {
  service: string;
  namespace: string;
  name: string;
  targetPorts: number[];
  udpTargetPorts?: number[];
  /** target ports that answer 400 unless spoken to in HTTP/2 cleartext (or HTTP/1.1 with Upgrade: h2c) */
  h2cOnly?: number[];
  tls?: PodTLS;
  /** attempts per retry key, shared by the pods of one Service */
  attempts: Map<string, number>;
}

const H2_PREFACE = Buffer.from('PRI * HTTP/2.0\r\n');

/** "1s", "300ms", "2" (seconds) -> ms */
function duration(v: string | null): number {
  if (!v) return 0;
  const m = /^(\d+(?:\.\d+)?)(ms|s|m)?$/.exec(v);
  if (!m) return 0;
  const n = Number(m[1]);
  return m[2] === 'ms' ? n : m[2] === 'm' ? n * 60_000 : n * 1000;
}

function joined(distinct: Record<string, string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(distinct)) if (v !== undefined && !k.startsWith(':')) out[k] = v.join(',');
  return out;
}

/** HTTP/1's headers with every value apart; HTTP/2 gives lists only for repeated ones. */
function distinctOf(req: http.IncomingMessage | http2.Http2ServerRequest): Record<string, string[]> {
  if ('headersDistinct' in req) return req.headersDistinct as Record<string, string[]>;
  return Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v : [String(v)]]));
}

function tlsOf(socket: net.Socket): EchoTLS | undefined {
  if (!(socket instanceof tls.TLSSocket)) return undefined;
  const peer = socket.getPeerCertificate();
  const raw = peer && 'raw' in peer ? peer.raw : undefined;
  return {
    sni: (socket as tls.TLSSocket & { servername?: string }).servername || '',
    ...(raw ? { clientCertificate: createHash('sha256').update(raw).digest('hex'), clientAuthorized: socket.authorized } : {}),
  };
}

export async function startEchoPod(o: PodOptions): Promise<EchoPod> {
  const log: LoggedRequest[] = [];
  const servers: net.Server[] = [];
  const sockets = new Set<net.Socket>();
  const pod: EchoPod = { name: o.name, ports: new Map(), udpPorts: new Map(), log, tls: o.tls, close };
  const udp: dgram.Socket[] = [];
  for (const port of [...new Set(o.udpTargetPorts ?? [])]) {
    const sock = dgram.createSocket('udp4');
    sock.on('message', (msg, from) => {
      log.push({ path: '', method: 'UDP', headers: {}, protocol: 'UDP', targetPort: port });
      sock.send(JSON.stringify({ service: o.service, namespace: o.namespace, pod: o.name, protocol: 'UDP', targetPort: port, bytes: msg.length }), from.port, from.address);
    });
    await new Promise<void>((r) => sock.bind(0, '127.0.0.1', () => r()));
    udp.push(sock);
    pod.udpPorts.set(port, sock.address().port);
  }

  const answer = (targetPort: number) => (req: http.IncomingMessage | http2.Http2ServerRequest, res: http.ServerResponse | http2.Http2ServerResponse) => {
    const headers = joined(distinctOf(req));
    const protocol = `HTTP/${req.httpVersion}`;
    const path = req.url ?? '/';
    log.push({ path, method: req.method ?? '', headers, protocol, targetPort });
    const url = new URL(path, 'http://x');
    const socket = (req as http.IncomingMessage).socket ?? (req as http2.Http2ServerRequest).stream?.session?.socket;
    if (o.h2cOnly?.includes(targetPort) && req.httpVersion.startsWith('1') && headers.upgrade?.toLowerCase() !== 'h2c') {
      res.writeHead(400, { 'content-type': 'text/plain' }).end('this port speaks HTTP/2 cleartext only\n');
      return;
    }
    const body: PodAnswer = {
      service: o.service, namespace: o.namespace, pod: o.name, method: req.method ?? '', path,
      host: (req.headers[':authority'] as string | undefined) ?? req.headers.host ?? '', headers, protocol, targetPort,
      ...(socket && tlsOf(socket as net.Socket) ? { tls: tlsOf(socket as net.Socket) } : {}),
    };
    const setHeaders: Record<string, string> = {};
    for (const part of (headers['x-echo-set-header'] ?? '').split(',')) {
      const i = part.indexOf(':');
      if (i > 0) setHeaders[part.slice(0, i).trim()] = part.slice(i + 1).trim();
    }
    const reply = () => {
      if (String(req.headers['content-type'] ?? '').startsWith('application/grpc')) {
        const msg = Buffer.from(JSON.stringify(body));
        const frame = Buffer.alloc(5 + msg.length);
        frame.writeUInt32BE(msg.length, 1);
        msg.copy(frame, 5);
        res.writeHead(200, { 'content-type': 'application/grpc', ...setHeaders });
        (res as http2.Http2ServerResponse).addTrailers({ 'grpc-status': '0' });
        res.end(frame);
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json', ...setHeaders }).end(JSON.stringify(body));
    };
    const drained = () => {
      if (url.pathname.startsWith('/retry')) {
        const key = url.searchParams.get('uuid') ?? '';
        const n = (o.attempts.get(key) ?? 0) + 1;
        o.attempts.set(key, n);
        if (n <= Number(url.searchParams.get('succeedAfter') ?? 0)) {
          const code = url.searchParams.get('responseCode');
          setTimeout(() => {
            if (code) res.writeHead(Number(code), { 'content-type': 'text/plain' }).end(`attempt ${n} fails\n`);
            else (socket as net.Socket | undefined)?.resetAndDestroy?.();
          }, duration(url.searchParams.get('delayRetry')));
          return;
        }
      }
      const delay = duration(url.searchParams.get('delay'));
      if (delay > 0) setTimeout(reply, delay);
      else reply();
    };
    req.resume();
    req.on('end', drained);
  };

  for (const port of [...new Set(o.targetPorts)]) {
    const handler = answer(port);
    const h1 = http.createServer(handler as http.RequestListener);
    const h2 = http2.createServer({}, handler as (a: http2.Http2ServerRequest, b: http2.Http2ServerResponse) => void);
    h1.on('upgrade', (req: http.IncomingMessage, socket: net.Socket, head: Buffer) => {
      const headers = joined(req.headersDistinct as Record<string, string[]>);
      log.push({ path: req.url ?? '/', method: req.method ?? '', headers, protocol: `HTTP/${req.httpVersion}`, targetPort: port, websocket: true });
      if (String(req.headers.upgrade).toLowerCase() !== 'websocket' || !req.headers['sec-websocket-key']) return void socket.destroy();
      const accept = createHash('sha1').update(`${req.headers['sec-websocket-key']}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest('base64');
      socket.write(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`);
      echoFrames(socket, head);
    });
    const secure = tls.createServer({
      SNICallback: (_name, cb) => {
        const t = pod.tls;
        if (!t) return cb(new Error('this pod serves no TLS'), undefined);
        cb(null, tls.createSecureContext({ cert: t.cert, key: t.key, ...(t.clientCA ? { ca: t.clientCA } : {}) }));
      },
      requestCert: true, rejectUnauthorized: false, ALPNProtocols: ['h2', 'http/1.1'],
    }, (s) => {
      // a client certificate that does not verify against the CA ends the connection
      if (pod.tls?.clientCA && s.getPeerCertificate()?.raw && !s.authorized) return void s.destroy();
      (s.alpnProtocol === 'h2' ? h2 : h1).emit('connection', s);
    });
    secure.on('tlsClientError', () => undefined);
    const front = net.createServer((socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => undefined);
      socket.once('readable', () => {
        const head = socket.read() as Buffer | null;
        if (!head) return void socket.destroy();
        socket.unshift(head);
        if (head[0] === 0x16) secure.emit('connection', socket);
        else if (head.subarray(0, 3).equals(H2_PREFACE.subarray(0, 3))) h2.emit('connection', socket);
        else h1.emit('connection', socket);
      });
    });
    await new Promise<void>((r, j) => front.once('error', j).listen(0, '127.0.0.1', () => r()));
    servers.push(front);
    pod.ports.set(port, (front.address() as AddressInfo).port);
  }

  async function close(): Promise<void> {
    for (const u of udp) u.close();
    for (const s of sockets) s.destroy();
    await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  }
  return pod;
}

/** Echoes every WebSocket frame back unmasked, with its opcode; a close frame is answered and ends the connection. */
export function echoFrames(socket: net.Socket, head: Buffer): void {
  let buf = head;
  const onData = (chunk: Buffer) => {
    buf = Buffer.concat([buf, chunk]);
    for (;;) {
      const f = readFrame(buf);
      if (!f) return;
      buf = buf.subarray(f.length);
      socket.write(writeFrame(f.opcode, f.payload, false));
      if (f.opcode === 8) return void socket.end();
    }
  };
  socket.on('data', onData);
  socket.on('error', () => undefined);
  if (head.length) onData(Buffer.alloc(0));
}

export interface Frame { opcode: number; payload: Buffer; length: number }

/** One whole frame at the start of `buf` (masked or not), or undefined when more bytes are needed. */
export function readFrame(buf: Buffer): Frame | undefined {
  if (buf.length < 2) return undefined;
  const opcode = buf[0] & 0x0f;
  const masked = (buf[1] & 0x80) !== 0;
  let len = buf[1] & 0x7f;
  let off = 2;
  if (len === 126) {
    if (buf.length < 4) return undefined;
    len = buf.readUInt16BE(2);
    off = 4;
  } else if (len === 127) {
    if (buf.length < 10) return undefined;
    len = Number(buf.readBigUInt64BE(2));
    off = 10;
  }
  const maskAt = off;
  if (masked) off += 4;
  if (buf.length < off + len) return undefined;
  const payload = Buffer.from(buf.subarray(off, off + len));
  if (masked) for (let i = 0; i < len; i++) payload[i] ^= buf[maskAt + (i & 3)];
  return { opcode, payload, length: off + len };
}

/** A final frame; clients mask theirs (RFC 6455 §5.3), servers do not. */
export function writeFrame(opcode: number, payload: Buffer, mask: boolean): Buffer {
  const len = payload.length;
  const head = len < 126 ? Buffer.from([0x80 | opcode, (mask ? 0x80 : 0) | len])
    : len < 65536 ? Buffer.from([0x80 | opcode, (mask ? 0x80 : 0) | 126, len >> 8, len & 255])
      : Buffer.concat([Buffer.from([0x80 | opcode, (mask ? 0x80 : 0) | 127]), (() => { const b = Buffer.alloc(8); b.writeBigUInt64BE(BigInt(len)); return b; })()]);
  if (!mask) return Buffer.concat([head, payload]);
  const key = Buffer.from([Math.random() * 256, Math.random() * 256, Math.random() * 256, Math.random() * 256].map(Math.floor));
  const body = Buffer.from(payload);
  for (let i = 0; i < len; i++) body[i] ^= key[i & 3];
  return Buffer.concat([head, key, body]);
}
