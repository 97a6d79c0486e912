// HTTP/2 to the endpoints that speak it: gRPC calls (HTTP/2 only) and backends whose Service port
// says appProtocol kubernetes.io/h2c. One session per endpoint, opened on first use and kept while it
// lives (HTTP/2 multiplexes every request over it); a session that errs or is told to go away is
// dropped, and the next request opens another. A backend with TLS to originate gets sessions of its
// own, negotiated h2 by ALPN.
import http2 from 'node:http2';
import type { OriginateTLS } from './backend-tls';

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
