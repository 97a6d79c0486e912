// What xDS nodes report for proxy-status, written in batches against the real store: many nodes'
// reports in a few statements, one row per node however many streams it has, a NACK listed without
// waiting for a renewal, open nodes renewed, and the Events a batch gives its Gateways (a node refusing a table).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { startTestServer, type TestServer } from '../support/server';
import { XdsReports } from '../../src/adapters/grpc/xds-reports';
import { reportProxies, type ReportDeps } from '../../src/service/report-proxy';
import type { GatewayReport } from '../../src/adapters/store/proxy-reports';

let s: TestServer;
let deps: ReportDeps;
const NS = 'apps';
const listed = async (gw = 'gw'): Promise<any[]> => (await s.api('GET', `/api/v1/namespaces/${NS}/gateways/${gw}/proxies`)).body.items;
const report = (id: string, version: number | null, error: string | null = null) => ({ proxyId: id, version, hash: null, error, xds: { variant: 'delta' as const, types: {} } });
const until = async <T>(get: () => Promise<T>, ok: (v: T) => boolean, ms = 5000): Promise<T> => {
  const deadline = Date.now() + ms;
  let v = await get();
  while (!ok(v) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 20));
    v = await get();
  }
  return v;
};

beforeAll(async () => {
  s = await startTestServer({}, { worker: false });
  for (const gw of ['gw', 'other']) {
    const r = await s.api('PUT', `/api/v1/namespaces/${NS}/gateways/${gw}`, { apiVersion: 'gateway.networking.k8s.io/v1', kind: 'Gateway', metadata: { name: gw }, spec: { gatewayClassName: 'switchyard', listeners: [{ name: 'http', protocol: 'HTTP', port: 80 }] } });
    expect(r.status).toBeLessThan(300);
  }
  deps = { sql: s.running.ctx.db.sql, controllerName: s.running.ctx.config.controllerName, eventsRetentionSeconds: 3600, logger: pino({ level: 'silent' }) };
});
afterAll(async () => {
  await s?.close();
});

describe('XdsReports', () => {
  it('writes 600 nodes\' reports in a few statements, one row per node, the latest of its streams', async () => {
    const batches: number[] = [];
    const reports = new XdsReports((items) => {
      batches.push(items.length);
      return reportProxies(deps, items);
    }, deps.logger, { renewMs: 60_000, gatherMs: 25, maxRows: 250 });
    const nodes = Array.from({ length: 600 }, (_, i) => reports.open(`${NS}/gw`, `xds:node-${i}`));
    // a second stream of node 0 (a reconnect overlapping the old stream): its report is the node's
    const again = reports.open(`${NS}/gw`, 'xds:node-0');
    nodes.forEach((n, i) => n.update(report(`xds:node-${i}`, null)));
    nodes.forEach((n, i) => n.update(report(`xds:node-${i}`, 1)));
    again.update(report('xds:node-0', 2));
    const items = await until(() => listed(), (l) => l.length === 600);
    expect(items).toHaveLength(600);
    expect(items.find((p) => p.id === 'xds:node-0')).toMatchObject({ version: 2 });
    expect(items.find((p) => p.id === 'xds:node-599')).toMatchObject({ version: 1 });
    // 600 nodes at most 250 a statement: three batches (the first update of each was replaced before it was written)
    expect(batches.reduce((a, b) => a + b, 0)).toBe(600);
    expect(batches.length).toBeLessThanOrEqual(3);
    // a stream that ends leaves its node's last report listed
    nodes[7].close();
    expect(reports.size).toBe(599);
    await reports.close();
    expect((await listed()).some((p) => p.id === 'xds:node-7')).toBe(true);
  });

  it('lists a NACK at once, not at the next renewal', async () => {
    const reports = new XdsReports((items) => reportProxies(deps, items), deps.logger, { renewMs: 600_000, gatherMs: 25, maxRows: 2000 });
    const node = reports.open(`${NS}/other`, 'xds:nacker');
    node.update(report('xds:nacker', 1));
    await until(() => listed('other'), (l) => l.some((p) => p.id === 'xds:nacker'));
    node.update({ ...report('xds:nacker', 1, 'route NACKED: bad regex'), xds: { variant: 'delta', types: { route: { acked: 'v1', nacked: { version: 'v2', error: 'bad regex' } } } } });
    const nacked = await until(() => listed('other'), (l) => l.find((p) => p.id === 'xds:nacker')?.state === 'NACKED');
    expect(nacked.find((p) => p.id === 'xds:nacker')).toMatchObject({ state: 'NACKED', error: 'route NACKED: bad regex' });
    await reports.close();
  });

  it('renews the reports of the nodes with an open stream, and only theirs', async () => {
    const reports = new XdsReports((items) => reportProxies(deps, items), deps.logger, { renewMs: 300, gatherMs: 25, maxRows: 2000 });
    const open = reports.open(`${NS}/other`, 'xds:renewed');
    const gone = reports.open(`${NS}/other`, 'xds:gone');
    open.update(report('xds:renewed', 1));
    gone.update(report('xds:gone', 1));
    const first = await until(() => listed('other'), (l) => l.some((p) => p.id === 'xds:renewed') && l.some((p) => p.id === 'xds:gone'));
    const seen = (l: any[], id: string) => Date.parse(l.find((p) => p.id === id).lastSeen);
    const later = await until(() => listed('other'), (l) => seen(l, 'xds:renewed') > seen(first, 'xds:renewed'), 5000);
    expect(seen(later, 'xds:renewed')).toBeGreaterThan(seen(first, 'xds:renewed'));
    // a stream ended: its node is renewed no more (a renewal on its way when it ended may still land)
    gone.close();
    await new Promise((r) => setTimeout(r, 400));
    const after = await listed('other');
    await until(() => listed('other'), (l) => seen(l, 'xds:renewed') > seen(after, 'xds:renewed'), 5000);
    expect(seen(await listed('other'), 'xds:gone')).toBe(seen(after, 'xds:gone'));
    await reports.close();
  });
});

describe('reportProxies', () => {
  it('saves a batch as single reports save, with each one\'s previous state, and records the Events it gives', async () => {
    const items: GatewayReport[] = [
      { gateway: `${NS}/gw`, report: report('xds:batch-a', null) },
      { gateway: `${NS}/other`, report: report('xds:batch-b', null) },
    ];
    const first = await reportProxies(deps, items);
    expect(first.map((r) => [r.gateway, r.row.proxyId, r.previous]).sort()).toEqual([[`${NS}/gw`, 'xds:batch-a', undefined], [`${NS}/other`, 'xds:batch-b', undefined]]);
    const second = await reportProxies(deps, [{ gateway: `${NS}/gw`, report: report('xds:batch-a', null, 'listener NACKED: refused') }]);
    expect(second).toHaveLength(1);
    expect(second[0]).toMatchObject({ gateway: `${NS}/gw`, row: { proxyId: 'xds:batch-a', error: 'listener NACKED: refused' }, previous: { version: null, error: null, stale: false } });
    const events = await s.running.ctx.db.sql.$queryRawUnsafe<{ reason: string; note: string }[]>(
      `SELECT reason, note FROM kube_events WHERE namespace = $1 AND regarding->>'name' = 'gw' AND reason = 'ProxyRejected'`, NS);
    expect(events.map((e) => e.note)).toEqual([expect.stringContaining('Proxy "xds:batch-a" rejected the route table: listener NACKED: refused')]);
  });
});
