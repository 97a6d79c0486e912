// `switchyard nginx`: programs a stock nginx from the Gateways' snapshots. It follows each Gateway's
// snapshots as the reference proxy does (src/proxy/feed.ts: SSE with deltas), renders the whole
// configuration (src/core/nginx, pure), writes it (files.ts), checks it with `nginx -t` and reloads
// nginx only when it passes. A configuration nginx refuses (at the check, or at the reload: a port
// it cannot bind) is reported as the reference proxy reports a snapshot it cannot apply (STALE, with
// nginx's message) and the last good configuration keeps serving. Snapshots that come while a
// reload is under way are taken together by the next one: a burst of changes is one reload.
import { hostname } from 'node:os';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve as resolvePath } from 'node:path';
import { TABLE_FORMAT, type Snapshot } from '../core/compile/types';
import { renderNginx, renderRoutes, routesKey, type NginxRender, type NginxRenderInput, type RoutesRender } from '../core/nginx';
import { SnapshotFeed, type FeedState } from '../proxy/feed';
import { Tables } from '../proxy/tables';
import { Reporter } from '../proxy/reporter';
import { adminServer } from '../proxy/admin';
import { ProxyMetrics } from '../proxy/metrics';
import type { PortKind } from '../proxy/listener-servers';
import { accessLog } from '../proxy/access-log';
import { collect, CONF, nginxTest, prepareDir, promote, writeCandidate } from './files';
import { NginxProcess } from './nginx-process';
import { startAuthBridge } from './auth-bridge';
import { runtimePath } from '../runtime/files';

export interface NginxAgentOptions {
  url: string;
  token: string;
  gateways: string[];
  portOffset: number;
  adminPort: number;
  /** the address nginx listens on */
  host: string;
  /** the admin port's address */
  adminHost?: string;
  id?: string;
  /** supervised: nginx's prefix, where the agent writes and runs it */
  prefix?: string;
  /** external: the configuration file of an nginx someone else runs */
  externalConf?: string;
  nginxBin?: string;
  modulesDir?: string;
  workerProcesses?: string;
  logLevel?: string;
  /** how long a change waits for others before it is rendered, ms (default 20) */
  settleMs?: number;
  /** how long a reload may take to show, ms (default 30 s) */
  reloadTimeoutMs?: number;
  backoffMs?: [number, number];
}

export interface ReloadRecord {
  id: string;
  versions: Record<string, number>;
  /** ms: render, write and check, reload until the new workers answer */
  renderMs: number;
  checkMs: number;
  reloadMs: number;
  routesRendered: boolean;
}

export interface RunningNginxAgent {
  adminPort: number;
  tables: Tables;
  dir: string;
  conf: string;
  nginx: NginxProcess;
  reloads: ReloadRecord[];
  /** snapshots taken from the feeds (whole or by delta) */
  snapshots(): number;
  stop(): Promise<void>;
}

const KIND: Record<string, PortKind> = { HTTP: 'http', HTTPS: 'https', TLS: 'tls', TCP: 'tcp', UDP: 'udp' };

export async function startNginxAgent(o: NginxAgentOptions): Promise<RunningNginxAgent> {
  const log = accessLog(false, o.logLevel);
  const external = o.externalConf !== undefined;
  const conf = resolvePath(o.externalConf ?? join(o.prefix ?? '.', CONF));
  const dir = external ? dirname(conf) : resolvePath(o.prefix ?? '.');
  const bin = o.nginxBin ?? '/usr/sbin/nginx';
  if (!existsSync(bin)) throw new Error(`no nginx at ${bin} (Debian: apt-get install nginx libnginx-mod-http-js libnginx-mod-stream libnginx-mod-stream-js)`);
  prepareDir(dir);
  const latest = new Map<string, Snapshot>();
  // ExternalAuth: the dispatch asks the authorization servers through the agent (auth-bridge.ts)
  const bridge = await startAuthBridge(join(dir, 'run', 'auth.sock'), () => [...latest.values()].map((s) => s.table).filter((t) => t?.format === TABLE_FORMAT));
  const id = o.id ?? `${hostname()}-nginx-${process.pid}`;
  const tables = new Tables(o.gateways);
  const metrics = new ProxyMetrics();
  const feedStates = new Map<string, FeedState>();
  const reporter = new Reporter({ url: o.url, token: o.token, id, tables, onError: (gateway, e) => log.error({ gateway, error: e.message }, 'report not sent') });
  const nginx = new NginxProcess({
    bin, dir, conf, external,
    onOutput: (line) => log.info({ nginx: line }, 'nginx'),
    onExit: (code, signal) => log.error({ code, signal }, 'nginx exited'),
  });
  const base: Omit<NginxRenderInput, 'gateways'> = {
    portOffset: o.portOffset, host: o.host, dir, njsScript: runtimePath('njsScript'),
    workerProcesses: o.workerProcesses ?? 'auto', modulesDir: o.modulesDir ?? '/usr/lib/nginx/modules',
  };
  const reloads: ReloadRecord[] = [];
  let good: NginxRender | undefined;
  let routesCache: { key: string; routes: RoutesRender } | undefined;
  let dirty = false;
  let running: Promise<void> | null = null;
  let timer: NodeJS.Timeout | null = null;
  let stopped = false;
  let received = 0;

  const schedule = () => {
    dirty = true;
    if (running || timer || stopped) return;
    timer = setTimeout(() => {
      timer = null;
      running = loop().finally(() => { running = null; });
    }, o.settleMs ?? 20);
  };

  const loop = async () => {
    while (dirty && !stopped) {
      dirty = false;
      await cycle(new Map(latest));
    }
  };

  const waitFor = async (want: string, before: readonly number[]): Promise<string | undefined> => {
    const deadline = Date.now() + (o.reloadTimeoutMs ?? 30_000);
    const logFile = join(dir, 'logs', 'error.log');
    const from = existsSync(logFile) ? statSync(logFile).size : 0;
    for (let i = 0; ; i++) {
      // the new workers answer, and every worker of before the reload has stopped accepting
      if ((await nginx.configId()) === want) {
        const accepting = new Set(nginx.acceptingWorkers());
        if (!before.some((p) => accepting.has(p))) return undefined;
      }
      // the master refuses a configuration it cannot apply (a port it cannot bind) with an [emerg] line
      const emerg = existsSync(logFile) ? readFileSync(logFile).subarray(from).toString().split('\n').filter((l) => /\[emerg\]/.test(l)) : [];
      if (emerg.length) return emerg.map((l) => l.replace(/^\S+ \S+ \[emerg\] \d+#\d+: /, '')).join('\n');
      if (Date.now() > deadline) return `nginx did not take the configuration within ${o.reloadTimeoutMs ?? 30_000} ms`;
      await new Promise((r) => setTimeout(r, Math.min(50, 2 + i * 2)));
    }
  };

  const refuse = (snaps: Map<string, Snapshot>, why: string) => {
    for (const [gw, snap] of snaps) {
      if (tables.get(gw)?.served?.version === snap.version) continue;
      tables.reject(gw, snap, why);
      metrics.applyErrors.inc({ gateway: gw });
      reporter.report(gw);
    }
    log.error({ error: why }, 'configuration not applied; the last good one keeps serving');
  };

  const cycle = async (snaps: Map<string, Snapshot>) => {
    const usable = new Map<string, Snapshot>();
    for (const [gw, snap] of snaps) {
      if (snap.table?.format !== TABLE_FORMAT) refuse(new Map([[gw, snap]]), `unknown table format ${JSON.stringify(snap.table?.format)} (this agent reads ${TABLE_FORMAT})`);
      else usable.set(gw, snap);
    }
    if (usable.size === 0) return;
    const t0 = performance.now();
    const input: NginxRenderInput = { ...base, gateways: [...usable].map(([gateway, s]) => ({ gateway, table: s.table, secrets: s.secrets ?? [] })) };
    const key = routesKey(input);
    const routesRendered = routesCache?.key !== key;
    if (routesRendered) routesCache = { key, routes: renderRoutes(input) };
    const r = renderNginx(input, routesCache!.routes);
    if (good && r.id === good.id && nginx.running) {
      // nothing nginx sees changed (a version that changed only what nginx does not use)
      for (const [gw, s] of usable) served(gw, s, r);
      return;
    }
    const candidate = writeCandidate(dir, r, conf);
    const t1 = performance.now();
    const refused = await nginxTest(bin, dir, candidate);
    const t2 = performance.now();
    if (refused) return refuse(usable, `nginx -t: ${refused}`);
    promote(conf);
    const before = nginx.acceptingWorkers();
    let failed: string | undefined;
    try {
      if (!nginx.running && !external) nginx.start();
      else await nginx.reload();
      failed = await waitFor(r.id, before);
    } catch (e) {
      failed = (e as Error).message;
    }
    const t3 = performance.now();
    if (failed) {
      // nginx keeps what it ran: the last good configuration goes back on disk for the next reload
      if (good) {
        writeCandidate(dir, good, conf);
        promote(conf);
      }
      return refuse(usable, `nginx reload: ${failed}`);
    }
    const previous = good;
    good = r;
    collect(dir, [r]);
    void previous;
    reloads.push({ id: r.id, versions: Object.fromEntries([...usable].map(([gw, s]) => [gw, s.version])), renderMs: t1 - t0, checkMs: t2 - t1, reloadMs: t3 - t2, routesRendered });
    if (reloads.length > 1000) reloads.shift();
    if (r.gaps.length) log.info({ gaps: r.gaps }, 'what nginx cannot honour exactly');
    for (const [gw, s] of usable) served(gw, s, r);
    log.info({ id: r.id, versions: Object.fromEntries([...usable].map(([gw, s]) => [gw, s.version])), renderMs: Math.round(t1 - t0), checkMs: Math.round(t2 - t1), reloadMs: Math.round(t3 - t2), routesRendered }, 'nginx configuration applied');
  };

  const served = (gw: string, s: Snapshot, _r: NginxRender) => {
    tables.swap(gw, { gateway: gw, version: s.version, hash: s.hash, table: s.table, secrets: s.secrets ?? [], appliedAt: Date.now() });
    metrics.swaps.inc({ gateway: gw });
    metrics.tableVersion.set({ gateway: gw }, s.version);
    reporter.report(gw);
  };

  const feeds = o.gateways.map((gateway) => {
    const [namespace, name] = gateway.split('/');
    const feed = new SnapshotFeed({
      url: o.url, token: o.token, namespace, name, backoffMs: o.backoffMs,
      onSnapshot: (snap) => {
        received++;
        latest.set(gateway, snap);
        schedule();
      },
      onState: (s) => {
        const was = feedStates.get(gateway);
        feedStates.set(gateway, s);
        if (s.connected && was && !was.connected && was.lastError) reporter.report(gateway);
      },
    });
    feed.start();
    return feed;
  });
  reporter.start();

  const ports = {
    list: () => tables.all().flatMap((s) => (s.served?.table.listeners ?? []).filter((l) => l.valid && KIND[l.protocol])
      .map((l) => ({ gateway: s.gateway, port: l.port, local: l.port + o.portOffset, kind: KIND[l.protocol] }))),
  };
  const admin = adminServer({ tables, metrics, feedStates, ports });
  await new Promise<void>((res, rej) => {
    admin.once('error', rej);
    admin.listen(o.adminPort, o.adminHost ?? '127.0.0.1', () => res());
  });
  const adminPort = (admin.address() as { port: number }).port;
  log.info({ id, gateways: o.gateways, adminPort, portOffset: o.portOffset, dir, conf, external, api: o.url }, 'switchyard nginx started');

  let stopping: Promise<void> | null = null;
  return {
    adminPort, tables, dir, conf, nginx, reloads,
    snapshots: () => received,
    stop() {
      stopping ??= (async () => {
        stopped = true;
        if (timer) clearTimeout(timer);
        reporter.stop();
        await Promise.all(feeds.map((f) => f.stop()));
        await running;
        await nginx.stop();
        await bridge.close();
        await new Promise<void>((r) => admin.close(() => r()));
        admin.closeAllConnections();
        log.info({}, 'switchyard nginx stopped');
      })();
      return stopping;
    },
  };
}
