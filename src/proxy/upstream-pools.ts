// HTTP/1.1 connections to the endpoints, through undici: one Pool per endpoint (and per TLS to
// originate, whose options are the pool's connect options: SNI, CAs, SANs, client certificate), its
// connections kept alive and bounded, one request at a time on each (no pipelining). A pool unused
// for a sweep interval is closed (gracefully: requests on it finish), so endpoints a table no longer
// names do not keep connections open.
import { Pool } from 'undici';
import type { CompiledEndpoint } from '../core/compile/types';
import type { OriginateTLS } from './backend-tls';

/** Connections per endpoint at most: requests beyond wait in the pool's queue. */
const CONNECTIONS_PER_ENDPOINT = 256;
/** How often pools unused since the last sweep are closed. */
const SWEEP_MS = 60_000;

interface Entry {
  pool: Pool;
  /** dispatched on since the last sweep */
  used: boolean;
  closed: boolean;
}

export class UpstreamPools {
  /** plain endpoints, by the table's endpoint object: no key to build per request */
  private readonly byEndpoint = new WeakMap<CompiledEndpoint, Entry>();
  private readonly entries = new Map<string, Entry>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(sweepMs = SWEEP_MS) {
    this.sweeper = setInterval(() => this.sweep(), sweepMs);
    this.sweeper.unref();
  }

  /** The pool for `ep`, in TLS when `originate` says so; made on first use. */
  pool(ep: CompiledEndpoint, originate?: OriginateTLS): Pool {
    let e = originate ? undefined : this.byEndpoint.get(ep);
    if (!e || e.closed) {
      const authority = `${ep.address.includes(':') ? `[${ep.address}]` : ep.address}:${ep.port}`;
      const key = originate ? `https://${authority}|${originate.key_}` : `http://${authority}`;
      e = this.entries.get(key);
      if (!e || e.closed) {
        e = { pool: newPool(originate ? `https://${authority}` : `http://${authority}`, originate), used: true, closed: false };
        this.entries.set(key, e);
      }
      if (!originate) this.byEndpoint.set(ep, e);
    }
    e.used = true;
    return e.pool;
  }

  private sweep(): void {
    for (const [key, e] of this.entries) {
      if (e.used) {
        e.used = false;
        continue;
      }
      e.closed = true;
      this.entries.delete(key);
      e.pool.close().catch(() => undefined);
    }
  }

  /** Ends every connection, requests in flight included. */
  async close(): Promise<void> {
    clearInterval(this.sweeper);
    const all = [...this.entries.values()];
    this.entries.clear();
    for (const e of all) e.closed = true;
    await Promise.all(all.map((e) => e.pool.destroy().catch(() => undefined)));
  }
}

function newPool(origin: string, originate: OriginateTLS | undefined): Pool {
  return new Pool(origin, {
    connections: CONNECTIONS_PER_ENDPOINT,
    pipelining: 1,
    // the rule's timeouts (request, backendRequest) are the proxy's own; a response may stream for long
    headersTimeout: 0,
    bodyTimeout: 0,
    ...(originate ? {
      connect: {
        servername: originate.servername, ca: originate.ca, cert: originate.cert, key: originate.key,
        checkServerIdentity: originate.checkServerIdentity, rejectUnauthorized: true,
      },
    } : {}),
  });
}
