// Assembles the service from its parts; main.ts and the tests both start it through here.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { ensureDefaultGatewayClass } from './service/default-gateway-class';
import { listen } from './runtime/listen';
import { VERSION } from './runtime/version';
import { deploymentOf } from './adapters/queue/redis-keys';
import { databaseIdentity } from './adapters/store/database-identity';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync, chmodSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { processLogger } from './runtime/logger';
import type { Config } from './config/env';
import { openDatabase, type Database } from './adapters/store/database';
import { migrate } from './adapters/store/migrate';
import { pingDatabase } from './adapters/store/ping';
import { deleteExpiredEvents } from './adapters/store/kube-events';
import { ResourceService } from './service/resources';
import { InProcessBus, RedisBus, type Bus } from './adapters/delivery/bus';
import { RedisPing } from './adapters/delivery/redis-ping';
import { Metrics } from './adapters/http/metrics';
import { BootstrapAuthenticator } from './service/bootstrap-admin';
import { createApp } from './adapters/http/app';
import { warmValidation } from './service/validation';
import { problem } from './adapters/http/problem';
import { readinessOf } from './adapters/http/readiness';
import type { AppContext } from './adapters/http/context';
import { eventsChannel, publish } from './adapters/delivery/channels';
import { startWorker, type RunningWorker } from './worker';
import { ReconcileThread } from './runtime/reconcile-thread';
import { SnapshotHub } from './adapters/delivery/snapshots';
import { deliveryRouter } from './adapters/http/delivery-router';
import { meshRouter } from './adapters/http/mesh-router';
import { MeshHub } from './adapters/delivery/mesh-snapshots';
import { tokensRouter } from './adapters/http/tokens-router';
import { proxiesRouter } from './adapters/http/proxies-router';
import { TokenStore } from './service/tokens';
import { Limits } from './adapters/http/limits';
import { KUBE_PREFIX } from './adapters/http/kube/router';
import { localServerUrl, writeAdminKubeconfig } from './runtime/kubeconfig-file';
import { kubeTls } from './runtime/kube-tls';
import { acceptTlsToo } from './runtime/tls-on-same-port';
import { startXdsServer, type RunningXds } from './adapters/grpc/xds-server';
import { reportProxies } from './service/report-proxy';
import { linkerdServices } from './adapters/grpc/linkerd-services';

export interface Running {
  url: string;
  port: number;
  ctx: AppContext;
  /** the xDS server, unless XDS_PORT is 0 */
  xds: RunningXds | null;
  /** the in-process worker, when this process runs one on the API's thread */
  worker: RunningWorker | null;
  /** the worker's thread, when this process runs it on one */
  workerThread: ReconcileThread | null;
  close(): Promise<void>;
}

export { VERSION };
/** how long requests in flight may take to finish after SIGTERM */
const SHUTDOWN_GRACE_MS = 25_000;

export function adminTokenFor(config: Config, logger: Logger): string {
  if (config.adminToken) return config.adminToken;
  const dir = resolve(config.dataDir);
  const file = join(dir, 'admin-token');
  if (existsSync(file)) {
    logger.info({ file }, 'admin token read from file');
    return readFileSync(file, 'utf8').trim();
  }
  mkdirSync(dir, { recursive: true });
  const token = randomBytes(32).toString('base64url');
  writeFileSync(file, token + '\n', { mode: 0o600 });
  chmodSync(file, 0o600);
  logger.warn({ file }, 'no ADMIN_TOKEN set: generated the bootstrap admin token and wrote it to this file (mode 0600)');
  return token;
}

export interface ServerOptions {
  logger?: Logger;
  db?: Database;
  /** run the reconcile worker in this process (npm start): on the API's thread, or on a thread of its own; false for `npm run api` */
  worker?: boolean | 'thread';
  queuePrefix?: string;
  /** how long after a whole snapshot was asked for the next ones are made ready (see adapters/delivery/snapshots) */
  keepWholeSnapshotMs?: number;
}

export async function startServer(config: Config, opts: ServerOptions = {}): Promise<Running> {
  const logger = opts.logger ?? processLogger({ level: config.logLevel, base: { service: 'switchyard' } });
  // The port first: one in use is a one-line error before anything is opened. Until the app is
  // assembled the server answers 503.
  let app: ((req: IncomingMessage, res: ServerResponse) => void) | null = null;
  let draining = false;
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    // while draining, each answer closes its connection so keep-alive clients move elsewhere
    if (draining) res.setHeader('Connection', 'close');
    if (app) return app(req, res);
    res.writeHead(503, { 'content-type': 'application/problem+json', 'retry-after': '1' });
    res.end(JSON.stringify(problem(503, 'switchyard is starting')));
  };
  const server: Server = createServer(handle);
  server.keepAliveTimeout = 65_000;
  // kubectl sends its bearer token over TLS only: the same port also speaks TLS
  const tlsPair = kubeTls({ dataDir: config.dataDir, certFile: config.kubeTlsCertFile, keyFile: config.kubeTlsKeyFile, host: config.host });
  const secure = acceptTlsToo(server, tlsPair, handle);
  await listen(server, config.port, config.host);
  let db: Database;
  try {
    db = opts.db ?? (await openDatabase({ url: config.databaseUrl, dataDir: join(resolve(config.dataDir), 'pgdata') }));
  } catch (e) {
    server.close();
    throw e;
  }
  const applied = await migrate(db);
  if (applied.length) logger.info({ applied }, 'database migrations applied');

  // deployments sharing one Redis are kept apart by a prefix and a stamp derived from the database
  const deployment = config.redisUrl ? deploymentOf(await databaseIdentity(db), config.redisPrefix) : null;
  const bus: Bus = config.redisUrl && deployment ? new RedisBus(config.redisUrl, deployment) : new InProcessBus();
  const redisPing = config.redisUrl ? new RedisPing(config.redisUrl) : null;

  const metrics = new Metrics();
  const resources = new ResourceService(db);
  const tokens = new TokenStore(db);
  if (config.defaultGatewayClass && (await ensureDefaultGatewayClass(resources, config.controllerName, config.defaultGatewayClass)))
    logger.info({ gatewayClass: config.defaultGatewayClass, controllerName: config.controllerName }, 'first start: created the GatewayClass for this controller');
  const adminToken = adminTokenFor(config, logger);
  const auth = new BootstrapAuthenticator(adminToken, tokens);
  const sse = new Set<import('express').Response>();

  const ctx: AppContext = {
    config, db, resources, bus, metrics, logger, auth, sse, version: VERSION, snapshots: new SnapshotHub(db, bus, { keepWholeMs: opts.keepWholeSnapshotMs }), tokens,
    limits: new Limits(config.rateLimitPerSecond, config.rateLimitBurst, config.maxSsePerToken),
    readiness: () => readinessOf({ postgres: () => pingDatabase(db.sql), ...(redisPing ? { redis: () => redisPing.check() } : {}) }),
  };
  // One poke per turn of the event loop: readers re-read the log whatever a poke says, and a burst
  // of concurrent writes would otherwise send a message per write to every reader.
  let poke: { position?: number } | null = null;
  resources.onAppend((positions, events) => {
    for (const e of events ?? []) metrics.appends.inc({ kind: e.kind, type: e.type });
    if (poke === null) setImmediate(() => {
      publish(bus, eventsChannel, poke ?? {});
      poke = null;
    });
    poke = { position: positions[positions.length - 1] };
  });

  const workerThread = opts.worker === 'thread' ? new ReconcileThread(logger) : null;
  if (workerThread) metrics.includeText(() => workerThread.metrics());
  const worker: RunningWorker | null = opts.worker === false || workerThread ? null : startWorker({
    db, bus, logger, controllerName: config.controllerName, addressPool: config.addressPool, redisUrl: config.redisUrl, queuePrefix: opts.queuePrefix ?? deployment?.prefix, deploymentId: deployment?.id,
    kubeEventsRetentionSeconds: config.kubeEventsRetentionSeconds, clusterDomain: config.clusterDomain,
  });

  if (worker) metrics.include(worker.metrics.registry);
  // Kubernetes Events last seen longer ago than the retention are deleted now and then (reads leave
  // them out already): one indexed DELETE, every half retention, at most a minute apart
  const retention = config.kubeEventsRetentionSeconds;
  const eventSweep = retention > 0 ? setInterval(() => {
    deleteExpiredEvents(db.sql, retention).catch((err: unknown) => logger.warn({ err }, 'deleting expired Kubernetes Events failed; the next sweep retries'));
  }, Math.min(60, Math.max(1, retention / 2)) * 1000) : null;
  eventSweep?.unref();
  const meshHub = new MeshHub(db, bus, config.controllerName);
  let xds: RunningXds | null = null;
  if (config.xdsPort) {
    const xdsTls = config.xdsTlsCertFile && config.xdsTlsKeyFile
      ? { cert: readFileSync(config.xdsTlsCertFile, 'utf8'), key: readFileSync(config.xdsTlsKeyFile, 'utf8') } : tlsPair;
    try {
      xds = await startXdsServer({ port: config.xdsPort, host: config.host, tls: xdsTls, plaintextAnywhere: config.xdsPlaintext, auth, hub: ctx.snapshots, logger, metrics: metrics.xds,
        report: (items) => reportProxies({ sql: db.sql, controllerName: config.controllerName, eventsRetentionSeconds: config.kubeEventsRetentionSeconds, logger }, items),
        services: [linkerdServices({ auth, db, bus, clusterDomain: config.clusterDomain, logger, mesh: meshHub })] });
    } catch (e) {
      // the port is taken (or the protos cannot be read): nothing this start opened stays open
      ctx.snapshots.close();
      meshHub.close();
      await worker?.close();
      await workerThread?.close();
      await bus.close();
      redisPing?.disconnect();
      if (!opts.db) await db.close();
      server.close();
      secure.close();
      throw e;
    }
  }
  app = createApp(ctx, { delivery: deliveryRouter, extra: [tokensRouter, proxiesRouter, (c) => meshRouter(c, meshHub)] });
  const port = (server.address() as AddressInfo).port;
  // next to a token the server keeps in a file; a token from the environment is not written anywhere
  if (!config.adminToken) {
    const file = writeAdminKubeconfig(config.dataDir, localServerUrl(config.host, port, KUBE_PREFIX), adminToken, tlsPair.authority);
    logger.info({ file }, 'wrote the bootstrap admin kubeconfig (mode 0600)');
  }
  logger.info({ port, embeddedDatabase: db.embedded, redis: Boolean(config.redisUrl) }, 'switchyard listening');
  void warmValidation().catch((err: unknown) => logger.warn({ err }, 'compiling the validators ahead of the first writes failed; each compiles at its first use'));

  let closing: Promise<void> | null = null;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    ctx,
    xds,
    worker,
    workerThread,
    close() {
      closing ??= (async () => {
        draining = true;
        if (eventSweep) clearInterval(eventSweep);
        const closed = new Promise<void>((res) => server.close(() => res()));
        // long-polls are answered (304) and streams ended now; clients reconnect to another process
        const xdsClosed = xds?.close();
        ctx.snapshots.close();
        meshHub.close();
        for (const res of sse) res.end();
        const idle = setInterval(() => { server.closeIdleConnections(); secure.closeIdleConnections(); }, 50);
        server.closeIdleConnections();
        secure.closeIdleConnections();
        const hard = setTimeout(() => { server.closeAllConnections(); secure.closeAllConnections(); }, SHUTDOWN_GRACE_MS);
        await closed;
        await xdsClosed;
        clearInterval(idle);
        clearTimeout(hard);
        await worker?.close();
        await workerThread?.close();
        await bus.close();
        redisPing?.disconnect();
        if (!opts.db) await db.close();
        logger.info('switchyard stopped');
      })();
      return closing;
    },
  };
}
