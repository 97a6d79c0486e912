// What the fault tests and `npm run bench:faults` share: a small world of Gateways and routes, a
// stream of route changes to keep the reconciler busy when a fault strikes, and the check that
// every Gateway has converged (seen from outside, through the API).
import pg from 'pg';
import type { Client } from './server';

export const GW = 'gateway.networking.k8s.io/v1';
const CONTROLLER = 'switchyard.dev/gateway-controller';

export const gatewayPath = (g: number) => `/api/v1/namespaces/infra/gateways/gw-${g}`;
export const routePath = (g: number, r: number) => `/api/v1/namespaces/app/httproutes/r-${g}-${r}`;

export function routeBody(g: number, r: number, version: number) {
  return {
    apiVersion: GW, kind: 'HTTPRoute',
    spec: { parentRefs: [{ name: `gw-${g}`, namespace: 'infra' }], rules: [{ matches: [{ path: { type: 'PathPrefix', value: `/r${r}/v${version}` } }] }] },
  };
}

async function put(api: Client, path: string, body: unknown): Promise<void> {
  const r = await api('PUT', path, body);
  if (r.status >= 300) throw new Error(`PUT ${path}: ${r.status} ${r.text}`);
}

/** A GatewayClass, `gateways` Gateways with one HTTP listener each, and `routes` routes on each. */
export async function seedWorld(api: Client, gateways: number, routes: number): Promise<void> {
  await put(api, '/api/v1/gatewayclasses/faults', { apiVersion: GW, kind: 'GatewayClass', spec: { controllerName: CONTROLLER } });
  for (let g = 0; g < gateways; g++) {
    await put(api, gatewayPath(g), { apiVersion: GW, kind: 'Gateway', spec: { gatewayClassName: 'faults', listeners: [{ name: 'http', port: 80, protocol: 'HTTP', allowedRoutes: { namespaces: { from: 'All' } } }] } });
  }
  const writes: Promise<void>[] = [];
  for (let g = 0; g < gateways; g++) for (let r = 0; r < routes; r++) writes.push(put(api, routePath(g, r), routeBody(g, r, 0)));
  await Promise.all(writes);
}

/**
 * Whether every Gateway has converged on what the store holds now: each route's status names its
 * Gateway as Accepted at the route's current generation, and each Gateway counts its routes. The
 * reason when not.
 */
export async function convergedWhy(api: Client): Promise<string | null> {
  const routes = await api('GET', '/api/v1/namespaces/app/httproutes?limit=5000');
  if (routes.status !== 200) return `listing routes: ${routes.status}`;
  const gateways = await api('GET', '/api/v1/namespaces/infra/gateways?limit=5000');
  if (gateways.status !== 200) return `listing gateways: ${gateways.status}`;
  const perGateway = new Map<string, number>();
  for (const r of routes.body.items) {
    const gw = r.spec.parentRefs[0].name as string;
    perGateway.set(gw, (perGateway.get(gw) ?? 0) + 1);
    const parent = (r.status?.parents ?? []).find((p: any) => p.parentRef?.name === gw);
    const accepted = parent?.conditions?.find((c: any) => c.type === 'Accepted');
    if (accepted?.status !== 'True' || accepted.observedGeneration !== r.metadata.generation) {
      return `route ${r.metadata.name} (generation ${r.metadata.generation}): Accepted ${JSON.stringify(accepted ?? null)}`;
    }
  }
  for (const g of gateways.body.items) {
    const attached = g.status?.listeners?.[0]?.attachedRoutes;
    if (attached !== (perGateway.get(g.metadata.name) ?? 0)) return `gateway ${g.metadata.name}: attachedRoutes ${attached}, routes ${perGateway.get(g.metadata.name) ?? 0}`;
  }
  return null;
}

/** Waits until every Gateway has converged; the milliseconds it took. */
export async function untilConverged(api: Client, timeoutMs: number): Promise<number> {
  const started = performance.now();
  let why: string | null = 'not checked';
  while (performance.now() - started < timeoutMs) {
    why = await convergedWhy(api).catch((e: Error) => `unreachable: ${e.message}`);
    if (why === null) return performance.now() - started;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`not converged within ${timeoutMs} ms: ${why}`);
}

/** Changes routes round-robin with `clients` concurrent writers until stopped; what each answer was. */
export function changeStream(api: Client, gateways: number, routes: number, clients = 4) {
  let stopped = false;
  const statuses = new Map<number, number>();
  let retryAfter: string | null = null;
  let n = 0;
  const writer = async () => {
    while (!stopped) {
      const i = n++;
      const g = i % gateways;
      const r = Math.floor(i / gateways) % routes;
      let status = 0;
      try {
        const res = await api('PUT', routePath(g, r), routeBody(g, r, i + 1));
        status = res.status;
        if (status === 503) retryAfter ??= res.headers.get('retry-after');
      } catch {
        status = -1; // the connection failed
      }
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
      // while the store is away, answers come at once: do not spin
      if (status >= 500 || status < 0) await new Promise((res) => setTimeout(res, 20));
    }
  };
  const done = Promise.all(Array.from({ length: clients }, writer));
  return {
    statuses, get retryAfter() { return retryAfter; },
    async stop() {
      stopped = true;
      await done;
    },
  };
}

/** A connection to the store that holds every recompute's write back (and nothing else) until released. */
export async function holdRecomputeWrites(databaseUrl: string) {
  const c = new pg.Client({ connectionString: databaseUrl });
  await c.connect();
  await c.query('BEGIN');
  // a table lock takes no transaction id, so the log's horizon (and so the dispatcher) moves on
  await c.query('LOCK TABLE recomputes IN SHARE MODE');
  return {
    /** the application names of the backends waiting on the lock: recomputes in the middle of their write */
    async waiting(): Promise<string[]> {
      const { rows } = await c.query<{ application_name: string }>(
        `SELECT application_name FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()`);
      return rows.map((r) => r.application_name);
    },
    /** ends the backends of a process (a dead process's statements would otherwise still run once the lock goes) */
    async terminate(applicationName: string): Promise<void> {
      await c.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1`, [applicationName]);
    },
    async release(): Promise<void> {
      await c.query('ROLLBACK').catch(() => undefined);
      await c.end().catch(() => undefined);
    },
  };
}

/** A database URL whose connections carry `name` (pg_stat_activity.application_name). */
export function withApplicationName(url: string, name: string): string {
  const u = new URL(url);
  u.searchParams.set('application_name', name);
  return u.toString();
}

export async function until<T>(what: string, fn: () => Promise<T | null | undefined | false>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/**
 * Waits until the store shows no Gateway wanted above what its last recompute read: no recompute
 * is due or running (converged statuses alone do not say that a run asked for again is over).
 */
export async function untilNothingBehind(databaseUrl: string, timeoutMs = 30_000): Promise<void> {
  const c = new pg.Client({ connectionString: databaseUrl });
  await c.connect();
  try {
    await until('no recompute due', async () => {
      const { rows } = await c.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM reconcile_wants w LEFT JOIN recomputes r ON r.gateway = w.key WHERE r.source_position IS NULL OR r.source_position < w.position`);
      return rows[0].n === 0;
    }, timeoutMs);
  } finally {
    await c.end();
  }
}
