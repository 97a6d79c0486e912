// The proxy's admin port: /healthz (alive), /readyz (200 once every Gateway has a table, with what
// each serves and whether the API is reachable), /metrics (Prometheus text).
import http from 'node:http';
import type { Tables } from './tables';
import type { ProxyMetrics } from './metrics';
import type { FeedState } from './feed';
import type { Ports } from './ports';

export interface AdminDeps {
  tables: Tables;
  metrics: ProxyMetrics;
  feedStates: Map<string, FeedState>;
  /** what is listened on, for /readyz (the nginx agent lists nginx's ports) */
  ports: Pick<Ports, 'list'>;
}

export function status(d: AdminDeps) {
  return {
    ready: d.tables.ready(),
    gateways: d.tables.all().map((s) => {
      const feed = d.feedStates.get(s.gateway);
      return {
        gateway: s.gateway,
        ...(s.served ? { version: s.served.version, hash: s.served.hash, appliedAt: new Date(s.served.appliedAt).toISOString() } : { version: null }),
        ...(s.rejected ? { error: s.rejected.error, rejectedVersion: s.rejected.version } : {}),
        api: feed ? { connected: feed.connected, mode: feed.mode, ...(feed.lastError ? { lastError: feed.lastError } : {}) } : { connected: false },
      };
    }),
    ports: d.ports.list(),
  };
}

export function adminServer(d: AdminDeps): http.Server {
  return http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const json = (code: number, body: unknown) => res.writeHead(code, { 'content-type': 'application/json' }).end(`${JSON.stringify(body)}\n`);
    if (req.method !== 'GET') return json(405, { error: 'GET only' });
    if (path === '/healthz') return json(200, { status: 'ok' });
    if (path === '/readyz') {
      const s = status(d);
      return json(s.ready ? 200 : 503, { status: s.ready ? 'ready' : 'no route table yet', ...s });
    }
    if (path === '/metrics') {
      void d.metrics.registry.metrics().then((text) => res.writeHead(200, { 'content-type': d.metrics.registry.contentType }).end(text), () => res.writeHead(500).end());
      return;
    }
    json(404, { error: `no ${path} here: /healthz, /readyz, /metrics` });
  });
}
