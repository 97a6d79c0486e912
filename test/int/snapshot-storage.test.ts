// A Gateway's snapshot stored in parts: a one-route change to a Gateway of hundreds of routes
// writes its delta (kilobytes) beside the last whole table, which stays as it was; a whole table
// is written again (once its version is announced) before the deltas add up to a quarter of it (or
// 32 of them), in place of the chain that leads to it (the deltas after it stay), never over a
// newer whole table; and a reader that has nothing cached (another API process) rebuilds from the
// store the body that a full recompute of the same objects gives, byte for byte.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reconciled, startTestServer, type TestServer } from '../support/server';
import { deflateTail, SnapshotHub } from '../../src/adapters/delivery/snapshots';
import { rebuildReconciled } from '../../src/service/rebuild';
import { withSecretData } from '../../src/core/snapshot/format';
import { compactSnapshot } from '../../src/adapters/store/recompute-write';

let s: TestServer;
const GW = 'gateway.networking.k8s.io/v1';
const SNAP = '/api/v1/namespaces/infra/gateways/edge/snapshot';
const STREAM = 'Gateway/infra/edge';
const ROUTES = 300;

const route = (path: string, backend = 'web') => ({
  apiVersion: GW, kind: 'HTTPRoute',
  spec: { parentRefs: [{ name: 'edge', namespace: 'infra' }], rules: [{ matches: [{ path: { type: 'PathPrefix', value: path } }], backendRefs: [{ name: backend, port: 80 }] }] },
});
const put = async (p: string, b: unknown) => expect((await s.api('PUT', p, b)).status).toBeLessThan(300);
const sql = <T = any>(q: string, ...args: unknown[]) => s.running.ctx.db.prisma.$queryRawUnsafe<T[]>(q, ...args);
const row = async () => (await sql<{ version: bigint; base_version: bigint | null; tail_z: Buffer }>(`SELECT version, base_version, tail_z FROM snapshots WHERE gateway = $1`, STREAM))[0];
const deltas = () => sql<{ version: bigint; bytes: number }>(`SELECT version, octet_length(delta) AS bytes FROM snapshot_deltas WHERE gateway = $1 ORDER BY version`, STREAM);

/** The body another API process serves an admin: read from the store, nothing cached. */
async function storedBody(): Promise<string> {
  const hub = new SnapshotHub(s.running.ctx.db, s.running.ctx.bus);
  try {
    return withSecretData((await hub.whole((await hub.get('infra/edge'))!))!.body, []);
  } finally {
    hub.close();
  }
}

/** Two bodies compared by where they first differ (a table of hundreds of routes is too long to print). */
function same(a: string, b: string, what: string): void {
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  expect(i === a.length && i === b.length ? 'the same' : `${a.length} vs ${b.length} chars, first apart at ${i}: ${a.slice(Math.max(0, i - 80), i + 80)} | ${b.slice(Math.max(0, i - 80), i + 80)}`, what).toBe('the same');
}

beforeAll(async () => {
  s = await startTestServer();
  await put('/api/v1/gatewayclasses/sy', { apiVersion: GW, kind: 'GatewayClass', spec: { controllerName: 'switchyard.dev/gateway-controller' } });
  await put('/api/v1/namespaces/infra/gateways/edge', { apiVersion: GW, kind: 'Gateway', spec: { gatewayClassName: 'sy', listeners: [{ name: 'http', port: 80, protocol: 'HTTP', allowedRoutes: { namespaces: { from: 'All' } } }] } });
  for (const svc of ['web', 'api']) {
    await put(`/api/v1/namespaces/app/services/${svc}`, { apiVersion: 'v1', kind: 'Service', spec: { ports: [{ port: 80 }] } });
    await put(`/api/v1/namespaces/app/endpointslices/${svc}-1`, { apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { labels: { 'kubernetes.io/service-name': svc } }, addressType: 'IPv4', endpoints: [{ addresses: ['10.0.0.1'] }], ports: [{ port: 8080 }] });
  }
  const res = await s.api('POST', '/api/v1/apply', { items: Array.from({ length: ROUTES }, (_, i) => ({ ...route(`/r${i}`), metadata: { namespace: 'app', name: `r${i}` } })) });
  expect(res.status).toBeLessThan(300);
  await reconciled(s);
}, 120_000);
afterAll(async () => {
  await s?.close();
});

describe('a snapshot stored in parts', () => {
  it('stores a one-route change as its delta, leaving the whole table where it is', async () => {
    // the first change after a whole table is written by this process may itself be whole: start from a delta
    await put('/api/v1/namespaces/app/httproutes/r0', route('/r0', 'api'));
    await reconciled(s);
    const base = await row();
    await put('/api/v1/namespaces/app/httproutes/r1', route('/r1', 'api'));
    await reconciled(s);
    const after = await row();
    expect(Number(after.version)).toBe(Number(base.version) + 1);
    expect(after.base_version).not.toBeNull();
    expect(Buffer.compare(after.tail_z, base.tail_z)).toBe(0);
    const stored = await deltas();
    expect(stored.at(-1)).toMatchObject({ version: after.version });
    expect(stored.at(-1)!.bytes).toBeLessThan(4096);
    // the whole table is tens of times the delta
    expect(after.tail_z.length).toBeGreaterThan(stored.at(-1)!.bytes);
    same(await storedBody(), (await s.api('GET', SNAP)).text, 'after one delta');
  });

  it('writes the whole table again before the chain grows long, and every stored version reads as the full recompute of it', async () => {
    let longest = 0;
    let cuts = 0;
    let last = await row();
    // at 300 routes the deltas add up to a quarter of the table before there are 256 of them
    for (let k = 0; k < 240 && !(cuts > 0 && k >= 40); k++) {
      const i = 2 + ((k * 37) % (ROUTES - 2));
      if (k % 5 === 4) {
        const r = await s.api('DELETE', `/api/v1/namespaces/app/httproutes/r${i}`);
        expect(r.status).toBeLessThan(300);
      } else await put(`/api/v1/namespaces/app/httproutes/r${i}`, route(`/r${i}/v${k}`, k % 2 ? 'api' : 'web'));
      await reconciled(s);
      const now = await row();
      const chain = now.base_version === null ? 0 : Number(now.version) - Number(now.base_version);
      const stored = (await deltas()).filter((d) => d.version > (now.base_version ?? now.version));
      expect(stored.length).toBe(chain);
      if (chain < (last.base_version === null ? 0 : Number(last.version) - Number(last.base_version))) cuts++;
      longest = Math.max(longest, chain);
      last = now;
      if (k % 8 === 0 || chain === 0) {
        const body = await storedBody();
        same(body, (await s.api('GET', SNAP)).text, `change ${k}`);
        // the chain is cut once its deltas add up to a quarter of the table
        expect(stored.reduce((n, d) => n + Number(d.bytes), 0) * 4, `change ${k}`).toBeLessThanOrEqual(body.length + 4 * Math.max(0, ...stored.map((d) => Number(d.bytes))));
      }
    }
    expect(longest).toBeGreaterThan(1);
    expect(longest).toBeLessThanOrEqual(256);
    expect(cuts).toBeGreaterThan(0);
    // a full recompute of the same objects (a rebuild) finds the same table: the same hash, so
    // the same version, and the same body as the one rebuilt from the deltas
    const chained = await storedBody();
    const version = Number((await row()).version);
    await rebuildReconciled(s.running.ctx.db, 'switchyard.dev/gateway-controller');
    const rebuilt = await row();
    expect(Number(rebuilt.version)).toBe(version);
    expect(rebuilt.base_version).toBeNull();
    expect(await deltas()).toEqual([]);
    same(await storedBody(), chained, 'after the rebuild');
  }, 120_000);

  it('stores a whole table in place of the chain that leads to it, keeping the deltas after it, and never over a newer whole table', async () => {
    const ctrl = 'switchyard.dev/gateway-controller';
    // the first change after the rebuild above may be stored whole: the two after it are deltas
    for (const k of [0, 1]) {
      await put('/api/v1/namespaces/app/httproutes/r1', route(`/r1/again${k}`, 'web'));
      await reconciled(s);
    }
    const at = await row();
    expect(at.base_version).not.toBeNull();
    const version = Number(at.version);
    const body = await storedBody();
    const tail = body.slice(body.indexOf(',"hash":'));
    await put('/api/v1/namespaces/app/httproutes/r2', route('/r2/again', 'api'));
    await reconciled(s);
    const before = await row();
    expect(Number(before.version)).toBe(version + 1);
    expect(Number(before.base_version)).toBeLessThan(version);

    // the table of a version the store has moved past lands: the delta after it stays and chains from it
    expect(await compactSnapshot(s.running.ctx.db, STREAM, ctrl, version, deflateTail(tail))).toBe(true);
    const after = await row();
    expect([Number(after.version), Number(after.base_version)]).toEqual([version + 1, version]);
    expect((await deltas()).map((d) => Number(d.version))).toEqual([version + 1]);
    same(await storedBody(), (await s.api('GET', SNAP)).text, 'after a compaction of the version before');

    // one of a version older than the store's whole table writes nothing
    expect(await compactSnapshot(s.running.ctx.db, STREAM, ctrl, version - 1, Buffer.from('not a table'))).toBe(false);
    const still = await row();
    expect([Number(still.version), Number(still.base_version), Buffer.compare(still.tail_z, after.tail_z)]).toEqual([version + 1, version, 0]);
    expect((await deltas()).map((d) => Number(d.version))).toEqual([version + 1]);
    same(await storedBody(), (await s.api('GET', SNAP)).text, 'after a compaction that did not land');
  });
});
