// The reference proxy: follows the snapshots of the Gateways it serves, swaps each table in whole,
// binds the ports the tables name (offset for unprivileged runs), and routes real traffic with the
// core's matcher. It keeps serving the last good table while the API is away; a snapshot it cannot
// apply is reported and the last good table kept.
import type { Socket } from 'node:net';
import { plainServer, tlsServer } from './listener-servers';
import { TABLE_FORMAT, type Snapshot } from '../core/compile/types';
import { SnapshotFeed, type FeedState } from './feed';
import { Tables } from './tables';
import { PortBindError, Ports } from './ports';
import { ProxyMetrics } from './metrics';
import { accessLog, type AccessLog } from './access-log';
import { httpHandler } from './http-handler';
import { adminServer } from './admin';
import { Reporter } from './reporter';
import { H2Pool } from './upstream-h2';
import { UpstreamPools } from './upstream-pools';
import { upgradeHandler } from './upgrade-handler';
import { EndpointPicker } from './endpoints';
import { InFlight } from './in-flight';
import { tlsFrontServer } from './tls-front';
import { tcpServer } from './tcp-server';
import { udpServer } from './udp-server';
import type { StreamDeps } from './streams';

export interface ProxyOptions {
  url: string;
  token: string;
  /** "namespace/name" of each Gateway served */
  gateways: string[];
  portOffset: number;
  /** 0: any free port */
  adminPort: number;
  host: string;
  /** how this proxy is named in its reports */
  id: string;
  accessLog: boolean;
  logLevel?: string;
  /** how long a stop waits for requests in flight, ms */
  drainMs?: number;
  backoffMs?: [number, number];
  /** the first wait before a snapshot refused for a port is tried again, ms (default 1 s) */
  retryMs?: number;
  /** how long a UDP session lives without a datagram either way, ms (default 60 s) */
  udpIdleMs?: number;
}

export interface RunningProxy {
  adminPort: number;
  tables: Tables;
  ports: Ports;
  feedStates: Map<string, FeedState>;
  stop(): Promise<void>;
}

export async function startProxy(o: ProxyOptions): Promise<RunningProxy> {
  const log: AccessLog = accessLog(o.accessLog, o.logLevel);
  const metrics = new ProxyMetrics();
  const tables = new Tables(o.gateways);
  const inflight = new InFlight();
  const pools = new UpstreamPools();
  const h2 = new H2Pool();
  const tunnels = new Set<Socket>();
  const streams: StreamDeps = { tables, metrics, log, endpoints: new EndpointPicker(), inflight, udpIdleMs: o.udpIdleMs ?? 60_000 };
  const ports = new Ports(o.host, o.portOffset, (gateway, port, kind) => {
    const deps = { tables, metrics, log, pools, inflight, h2, tunnels };
    const handler = (k: 'http' | 'https') => httpHandler(deps, gateway, port, k);
    const upgrade = (k: 'http' | 'https') => upgradeHandler(deps, gateway, port, k);
    switch (kind) {
      case 'http': return plainServer(handler('http'), upgrade('http'));
      case 'https': return tlsServer(handler('https'), tables, gateway, port, 'none', upgrade('https'));
      case 'tls': return tlsFrontServer(streams, gateway, port, (validation) => tlsServer(handler('https'), tables, gateway, port, validation, upgrade('https')));
      case 'tcp': return tcpServer(streams, gateway, port);
      case 'udp': return udpServer(streams, gateway, port);
    }
  });
  const feedStates = new Map<string, FeedState>();
  const reporter = new Reporter({ url: o.url, token: o.token, id: o.id, tables, onError: (gateway, e) => log.error({ gateway, error: e.message }, 'report not sent') });

  // one apply at a time per Gateway, in the order the snapshots came
  const applying = new Map<string, Promise<void>>();
  // A snapshot refused for a port it could not bind is tried again (1 s, doubling to 30 s) until it
  // applies or a newer one arrives: a port held for a moment by another process is not lost for good.
  const latest = new Map<string, Snapshot>();
  const retries = new Map<string, { attempt: number; timer?: NodeJS.Timeout }>();
  let stopped = false;
  const retryLater = (gateway: string, snap: Snapshot) => {
    const r = retries.get(gateway) ?? { attempt: 0 };
    const delay = Math.min(30_000, (o.retryMs ?? 1000) * 2 ** r.attempt);
    r.attempt++;
    r.timer = setTimeout(() => {
      if (!stopped && latest.get(gateway) === snap) enqueue(gateway, snap);
    }, delay);
    r.timer.unref();
    retries.set(gateway, r);
  };
  const apply = (gateway: string, snap: Snapshot) => {
    clearTimeout(retries.get(gateway)?.timer);
    retries.delete(gateway);
    latest.set(gateway, snap);
    enqueue(gateway, snap);
  };
  const enqueue = (gateway: string, snap: Snapshot) => {
    const prev = applying.get(gateway) ?? Promise.resolve();
    const next = prev.then(() => applyOne(gateway, snap));
    applying.set(gateway, next);
  };
  const applyOne = async (gateway: string, snap: Snapshot) => {
    try {
      if (snap.table?.format !== TABLE_FORMAT) throw new Error(`unknown table format ${JSON.stringify(snap.table?.format)} (this proxy reads ${TABLE_FORMAT})`);
      const { ports: wanted, unserved } = Ports.wanted(snap.table);
      const release = await ports.prepare(gateway, wanted);
      tables.swap(gateway, { gateway, version: snap.version, hash: snap.hash, table: snap.table, secrets: snap.secrets ?? [], appliedAt: Date.now() });
      release();
      metrics.swaps.inc({ gateway });
      metrics.tableVersion.set({ gateway }, snap.version);
      retries.delete(gateway);
      log.info({ gateway, version: snap.version, hash: snap.hash, ports: Object.fromEntries([...wanted].map(([key, w]) => [key, w.kind])), ...(unserved.length ? { unserved } : {}) }, 'route table swapped in');
      reporter.report(gateway);
    } catch (e) {
      tables.reject(gateway, snap, (e as Error).message);
      metrics.applyErrors.inc({ gateway });
      log.error({ gateway, version: snap.version, error: (e as Error).message }, 'snapshot not applied; the last good table stays');
      reporter.report(gateway);
      if (e instanceof PortBindError && latest.get(gateway) === snap) retryLater(gateway, snap);
    }
  };

  const feeds = o.gateways.map((gateway) => {
    const [namespace, name] = gateway.split('/');
    const feed = new SnapshotFeed({
      url: o.url, token: o.token, namespace, name, backoffMs: o.backoffMs,
      onSnapshot: (snap) => apply(gateway, snap),
      onState: (s) => {
        const was = feedStates.get(gateway);
        feedStates.set(gateway, s);
        // back in touch after the API was away: tell it at once what this proxy serves, rather than
        // at the next periodic report (the ones sent meanwhile were lost)
        if (s.connected && was && !was.connected && was.lastError) reporter.report(gateway);
      },
    });
    feed.start();
    return feed;
  });

  reporter.start();
  const admin = adminServer({ tables, metrics, feedStates, ports });
  await new Promise<void>((resolve, reject) => {
    admin.once('error', reject);
    admin.listen(o.adminPort, o.host, () => resolve());
  });
  const adminPort = (admin.address() as { port: number }).port;
  log.info({ id: o.id, gateways: o.gateways, adminPort, portOffset: o.portOffset, api: o.url }, 'switchyard proxy started');

  let stopping: Promise<void> | null = null;
  return {
    adminPort, tables, ports, feedStates,
    stop() {
      stopping ??= (async () => {
        stopped = true;
        for (const r of retries.values()) clearTimeout(r.timer);
        reporter.stop();
        await Promise.all(feeds.map((f) => f.stop()));
        const servers = ports.servers();
        for (const s of servers) {
          s.close();
          s.closeIdleConnections();
        }
        // requests in flight finish; keep-alive connections close as they go idle
        const deadline = Date.now() + (o.drainMs ?? 10_000);
        while (inflight.size > 0 && Date.now() < deadline) {
          for (const s of servers) s.closeIdleConnections();
          await new Promise((r) => setTimeout(r, 25));
        }
        for (const s of servers) s.closeAllConnections();
        await pools.close();
        h2.close();
        for (const t of tunnels) t.destroy();
        await new Promise<void>((r) => admin.close(() => r()));
        admin.closeAllConnections();
        log.info({}, 'switchyard proxy stopped');
      })();
      return stopping;
    },
  };
}
