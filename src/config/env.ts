// Every setting comes from the environment, with defaults a normal client never meets.
export interface Config {
  port: number;
  host: string;
  databaseUrl?: string;
  redisUrl?: string;
  /** the prefix of every Redis key and channel; default derived from the database's identity */
  redisPrefix?: string;
  dataDir: string;
  adminToken?: string;
  controllerName: string;
  bodyLimitBytes: number;
  applyBodyLimitBytes: number;
  maxListLimit: number;
  rateLimitPerSecond: number;
  rateLimitBurst: number;
  maxSsePerToken: number;
  logLevel: string;
  /** which requests the access log records: every one (sampled), those answered 4xx/5xx, or none */
  accessLog: AccessLogMode;
  /** the share of requests answered below 400 that the access log records, 0 to 1 */
  accessLogSample: number;
  /** the port of the worker's /healthz, /readyz and /metrics (`npm run worker`); 0: none */
  workerPort: number;
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

function int(name: string, def: number, env: NodeJS.ProcessEnv): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return def;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 0) throw new Error(`${name} must be a non-negative number, got "${raw}"`);
  return n;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  return {
    port: int('PORT', 8080, env),
    host: env.HOST || '0.0.0.0',
    databaseUrl: env.DATABASE_URL || undefined,
    redisUrl: env.REDIS_URL || undefined,
    redisPrefix: env.REDIS_PREFIX || undefined,
    dataDir: env.SWITCHYARD_DATA_DIR || './.switchyard',
    adminToken: env.ADMIN_TOKEN || undefined,
    controllerName: env.CONTROLLER_NAME || 'switchyard.dev/gateway-controller',
    bodyLimitBytes: int('BODY_LIMIT_BYTES', 1024 * 1024, env),
    applyBodyLimitBytes: int('APPLY_BODY_LIMIT_BYTES', 32 * 1024 * 1024, env),
    maxListLimit: int('MAX_LIST_LIMIT', 5000, env),
    rateLimitPerSecond: int('RATE_LIMIT_PER_SECOND', 500, env),
    rateLimitBurst: int('RATE_LIMIT_BURST', 2000, env),
    maxSsePerToken: int('MAX_SSE_PER_TOKEN', 1000, env),
    logLevel: env.LOG_LEVEL || 'info',
    accessLog: accessLogMode(env),
    accessLogSample: fraction('ACCESS_LOG_SAMPLE', 1, env),
    workerPort: int('WORKER_PORT', 9091, env),
  };
}
