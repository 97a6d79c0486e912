// HTTP/2 to the endpoints that speak it: gRPC calls (HTTP/2 only) and backends whose Service port
// says appProtocol kubernetes.io/h2c. One session per endpoint, opened on first use and kept while it
// lives (HTTP/2 multiplexes every request over it); a session that errs or is told to go away is
// dropped, and the next request opens another.
import http2 from 'node:http2';

export class H2Pool {
  private readonly sessions = new Map<string, http2.ClientHttp2Session>();

  session(address: string, port: number): http2.ClientHttp2Session {
    const key = `${address.includes(':') ? `[${address}]` : address}:${port}`;
    const have = this.sessions.get(key);
    if (have && !have.closed && !have.destroyed) return have;
    const s = http2.connect(`http://${key}`);
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
