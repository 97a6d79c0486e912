// Every setting comes from the environment, with defaults a normal client never meets.
import { isIP } from 'node:net';

/** The GatewayClass the server creates for its own controller on first start, unless configured otherwise. */
export const DEFAULT_GATEWAY_CLASS = 'switchyard';

/** Kubernetes Events are kept for an hour after they were last seen, unless configured otherwise. */
export const DEFAULT_KUBE_EVENTS_RETENTION_SECONDS = 3600;

export interface Config {
  port: number;
  host: string;
  databaseUrl?: string;
  redisUrl?: string;
  /** the prefix of every Redis key and channel; default derived from the database's identity */
  redisPrefix?: string;
  /** the GatewayClass created for this controller on first start (SWITCHYARD_DEFAULT_GATEWAYCLASS; `false`: none) */
  defaultGatewayClass: string | null;
  dataDir: string;
  adminToken?: string;
  controllerName: string;
  /** SWITCHYARD_ADDRESS_POOL: the addresses (IPs or hostnames) Gateways may be given */
  addressPool: string[];
  bodyLimitBytes: number;
  applyBodyLimitBytes: number;
  maxListLimit: number;
  rateLimitPerSecond: number;
  rateLimitBurst: number;
  maxSsePerToken: number;
  /** a proxy not heard from for this long leaves the Gateway's list of proxies */
  proxyReportTtlSeconds: number;
  logLevel: string;
  /** which requests the access log records: every one (sampled), those answered 4xx/5xx, or none */
  accessLog: AccessLogMode;
  /** the share of requests answered below 400 that the access log records, 0 to 1 */
  accessLogSample: number;
  /** the port of the worker's /healthz, /readyz and /metrics (`npm run worker`); 0: none */
  workerPort: number;
  /** WORKER_PORT was given: that port or none; by default a worker takes the next free port after 9091 */
  workerPortFixed: boolean;
  /** `npm start` with PostgreSQL and Redis set runs its worker on a thread of its own (WORKER_THREAD=false: on the API's) */
  workerThread: boolean;
  /** how far back a Kubernetes watch may resume; an older resourceVersion is 410 Expired */
  kubeWatchHistorySeconds: number;
  /** how long a Kubernetes Event is kept after it was last seen; 0: none are recorded */
  kubeEventsRetentionSeconds: number;
  /** the certificate and key the Kubernetes paths are served with over TLS; unset: a self-signed one in dataDir */
  kubeTlsCertFile?: string;
  kubeTlsKeyFile?: string;
  /** XDS_PORT: the port of the xDS (ADS) gRPC server; 0: none */
  xdsPort: number;
  /** CLUSTER_DOMAIN: the DNS domain of Service names in the mesh (<service>.<namespace>.svc.<domain>) */
  clusterDomain: string;
  /** XDS_PLAINTEXT=true: plaintext gRPC from any client (by default from loopback clients only) */
  xdsPlaintext: boolean;
  /** the certificate and key of the xDS server's TLS; unset: those of the Kubernetes paths */
  xdsTlsCertFile?: string;
  xdsTlsKeyFile?: string;
}

/** CLUSTER_DOMAIN: a DNS name (labels of letters, digits and "-"), default cluster.local. */
function clusterDomain(env: NodeJS.ProcessEnv): string {
  const v = (env.CLUSTER_DOMAIN ?? '').trim().replace(/\.$/, '').toLowerCase();
  if (v === '') return 'cluster.local';
  if (!/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?(\.[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?)*$/.test(v)) throw new Error(`CLUSTER_DOMAIN must be a DNS name, got "${env.CLUSTER_DOMAIN}"`);
  return v;
}

export const ACCESS_LOG_MODES = ['all', 'errors', 'off'] as const;
export type AccessLogMode = (typeof ACCESS_LOG_MODES)[number];

function accessLogMode(env: NodeJS.ProcessEnv): AccessLogMode {
  const raw = env.ACCESS_LOG || 'all';
  if (!(ACCESS_LOG_MODES as readonly string[]).includes(raw)) throw new Error(`ACCESS_LOG must be one of ${ACCESS_LOG_MODES.join(', ')}, got "${raw}"`);
  return raw as AccessLogMode;
}

function fraction(name: string, def: number, env: NodeJS.ProcessEnv): number {
  const n = int(name, def, env);
  if (n > 1) throw new Error(`${name} must be a number from 0 to 1, got "${env[name]}"`);
  return n;
}

function flag(name: string, def: boolean, env: NodeJS.ProcessEnv): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return def;
  if (raw === 'true' || raw === 'false') return raw === 'true';
  throw new Error(`${name} must be true or false, got "${raw}"`);
}

/** The worker's own port when WORKER_PORT is not set; a second worker on the machine takes the next free one. */
export const DEFAULT_WORKER_PORT = 9091;

function int(name: string, def: number, env: NodeJS.ProcessEnv): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return def;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 0) throw new Error(`${name} must be a non-negative number, got "${raw}"`);
  return n;
}

function port(name: string, def: number, env: NodeJS.ProcessEnv): number {
  const n = int(name, def, env);
  if (!Number.isInteger(n) || n > 65535) throw new Error(`${name} must be a port number (0: none), got "${env[name]}"`);
  return n;
}

const HOSTNAME = /^(?=.{1,253}$)[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?(\.[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?)*$/i;

/** Comma-separated IP addresses or hostnames; a malformed entry stops the start, naming it. */
function addressPool(env: NodeJS.ProcessEnv): string[] {
  const raw = env.SWITCHYARD_ADDRESS_POOL ?? '';
  const entries = raw.split(',').map((e) => e.trim()).filter(Boolean);
  for (const e of entries) {
    const ok = isIP(e) !== 0 || (!/^[\d.]+$/.test(e) && HOSTNAME.test(e));
    if (!ok) throw new Error(`SWITCHYARD_ADDRESS_POOL: "${e}" is neither an IP address nor a hostname`);
  }
  return [...new Set(entries)];
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  return {
    port: int('PORT', 8080, env),
    host: env.HOST || '0.0.0.0',
    databaseUrl: env.DATABASE_URL || undefined,
    redisUrl: env.REDIS_URL || undefined,
    redisPrefix: env.REDIS_PREFIX || undefined,
    defaultGatewayClass: env.SWITCHYARD_DEFAULT_GATEWAYCLASS === 'false' ? null : env.SWITCHYARD_DEFAULT_GATEWAYCLASS || DEFAULT_GATEWAY_CLASS,
    dataDir: env.SWITCHYARD_DATA_DIR || './.switchyard',
    adminToken: env.ADMIN_TOKEN || undefined,
    controllerName: env.CONTROLLER_NAME || 'switchyard.dev/gateway-controller',
    addressPool: addressPool(env),
    bodyLimitBytes: int('BODY_LIMIT_BYTES', 1024 * 1024, env),
    applyBodyLimitBytes: int('APPLY_BODY_LIMIT_BYTES', 32 * 1024 * 1024, env),
    maxListLimit: int('MAX_LIST_LIMIT', 5000, env),
    rateLimitPerSecond: int('RATE_LIMIT_PER_SECOND', 500, env),
    rateLimitBurst: int('RATE_LIMIT_BURST', 2000, env),
    maxSsePerToken: int('MAX_SSE_PER_TOKEN', 1000, env),
    proxyReportTtlSeconds: int('PROXY_REPORT_TTL_SECONDS', 60, env),
    logLevel: env.LOG_LEVEL || 'info',
    accessLog: accessLogMode(env),
    accessLogSample: fraction('ACCESS_LOG_SAMPLE', 1, env),
    workerPort: int('WORKER_PORT', DEFAULT_WORKER_PORT, env),
    workerPortFixed: (env.WORKER_PORT ?? '') !== '',
    workerThread: flag('WORKER_THREAD', true, env),
    kubeWatchHistorySeconds: int('KUBE_WATCH_HISTORY_SECONDS', 3600, env),
    kubeEventsRetentionSeconds: int('KUBE_EVENTS_RETENTION_SECONDS', DEFAULT_KUBE_EVENTS_RETENTION_SECONDS, env),
    kubeTlsCertFile: env.KUBE_TLS_CERT_FILE || undefined,
    kubeTlsKeyFile: env.KUBE_TLS_KEY_FILE || undefined,
    xdsPort: port('XDS_PORT', 18000, env),
    clusterDomain: clusterDomain(env),
    xdsPlaintext: flag('XDS_PLAINTEXT', false, env),
    xdsTlsCertFile: env.XDS_TLS_CERT_FILE || undefined,
    xdsTlsKeyFile: env.XDS_TLS_KEY_FILE || undefined,
  };
}
