// HTTP/2 to the endpoints that speak it: gRPC calls (HTTP/2 only, trailers included) and backends
// whose Service port says appProtocol kubernetes.io/h2c, spoken with prior knowledge (which undici
// does not do). One session per endpoint, opened on first use and kept while it lives (HTTP/2
// multiplexes every request over it); a session that errs or is told to go away is dropped, and the
// next request opens another. A backend with TLS to originate gets sessions of its own, negotiated h2
// by ALPN.
import http2 from 'node:http2';
import type { OriginateTLS } from './backend-tls';
import type { HeaderMap } from '../core/match/headers';
import { HOP_BY_HOP } from './http-common';
import { unreachable, type Req, type TryOwner, type UpstreamTry } from './upstream-try';

export class H2Pool {
  private readonly sessions = new Map<string, http2.ClientHttp2Session>();

  session(address: string, port: number, originate?: OriginateTLS): http2.ClientHttp2Session {
    const authority = `${address.includes(':') ? `[${address}]` : address}:${port}`;
    const key = originate ? `${authority}|${originate.key_}` : authority;
    const have = this.sessions.get(key);
    if (have && !have.closed && !have.destroyed) return have;
    const s = originate
      ? http2.connect(`https://${authority}`, { servername: originate.servername, ca: originate.ca, cert: originate.cert, key: originate.key, checkServerIdentity: originate.checkServerIdentity, ALPNProtocols: ['h2'] })
      : http2.connect(`http://${authority}`);
    const drop = () => {
      if (this.sessions.get(key) === s) this.sessions.delete(key);
    };
    s.on('error', drop);
    s.on('goaway', drop);
    s.on('close', drop);
    // an idle session keeps no process alive; requests in flight do
    s.unref();
    this.sessions.set(key, s);
    return s;
  }

  close(): void {
    for (const s of this.sessions.values()) s.destroy();
    this.sessions.clear();
  }
}

/** What an HTTP/2 try sends: the flat header list (as upstream-h1.ts makes it), the request line's parts, and the body. */
export interface H2Request {
  method: string;
  path: string;
  scheme: 'http' | 'https';
  headers: string[];
  grpc: boolean;
  /** the whole body when it was kept, else null: the client's request is piped */
  body: Buffer | null;
  req: Req;
}

/** One try over an HTTP/2 stream; trailers (grpc-status) go on to HTTP/2 clients. */
export class H2Try implements UpstreamTry {
  private stream: http2.ClientHttp2Stream | undefined = undefined;
  private passing = false;
  private abandoned = false;
  private trailers: HeaderMap | undefined = undefined;

  constructor(private readonly owner: TryOwner, readonly n: number) {}

  start(session: () => http2.ClientHttp2Session, r: H2Request): void {
    const h2h: http2.OutgoingHttpHeaders = { ':method': r.method, ':path': r.path, ':scheme': r.scheme };
    for (let i = 0; i < r.headers.length; i += 2) h2h[r.headers[i] === 'host' ? ':authority' : r.headers[i]] = r.headers[i + 1];
    // the one TE value HTTP/2 allows, which gRPC requires
    if (r.grpc) h2h.te = 'trailers';
    let stream: http2.ClientHttp2Stream;
    try {
      stream = session().request(h2h);
    } catch (e) {
      return this.owner.failed(this, unreachable(e as Error), 503);
    }
    this.stream = stream;
    const res = this.owner.res;
    stream.on('response', (h) => {
      if (this.abandoned) return;
      const cookies = h['set-cookie'];
      this.passing = this.owner.answered(this, Number(h[':status'] ?? 502), h2Headers(h), Array.isArray(cookies) ? cookies : undefined);
      if (!this.passing) stream.resume();
    });
    stream.on('trailers', (t) => (this.trailers = h2Headers(t)));
    stream.on('data', (c: Buffer) => {
      if (this.passing) (res as NodeJS.WritableStream).write(c);
    });
    stream.on('end', () => {
      if (!this.passing) return;
      this.passing = false;
      // trailers (grpc-status) travel to HTTP/2 clients; an HTTP/1.1 answer has none
      if (this.trailers && 'stream' in res) res.addTrailers(this.trailers);
      res.end();
      this.owner.finished();
    });
    stream.on('error', (e) => {
      if (this.abandoned) return;
      if (this.passing) {
        this.passing = false;
        res.destroy();
        this.owner.finished();
      } else this.owner.failed(this, unreachable(e), 503);
    });
    if (r.body !== null) stream.end(r.body);
    else (r.req as NodeJS.ReadableStream).pipe(stream);
  }

  abort(): void {
    this.abandoned = true;
    this.passing = false;
    this.stream?.destroy();
  }
}

/** An HTTP/2 answer's headers as the client gets them: no pseudo-headers, no hop-by-hop ones, cookies apart. */
function h2Headers(h: http2.IncomingHttpHeaders): HeaderMap {
  const out = Object.create(null) as HeaderMap;
  for (const [k, v] of Object.entries(h)) {
    if (v === undefined || k.startsWith(':') || HOP_BY_HOP.has(k) || k === 'set-cookie') continue;
    out[k] = Array.isArray(v) ? v.join(',') : String(v);
  }
  return out;
}
