// What a Gateway depends on, through the real server and worker: a Secret named only by
// spec.tls.backend.clientCertificateRef is loaded, recorded, and its changes recompute the Gateway.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reconciled, startTestServer, type TestServer } from '../support/server';
import { backfillTouches } from '../../src/adapters/store/touches-backfill';
import { TEST_CERT, TEST_KEY } from '../support/tls';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(async () => {
  await s?.close();
});

const GW = 'gateway.networking.k8s.io/v1';
const secret = { apiVersion: 'v1', kind: 'Secret', type: 'kubernetes.io/tls', stringData: { 'tls.crt': TEST_CERT, 'tls.key': TEST_KEY } };

async function resolvedRefs() {
  await reconciled(s);
  const r = await s.api('GET', '/api/v1/namespaces/infra/gateways/edge');
  expect(r.status).toBe(200);
  const c = (r.body.status?.conditions ?? []).find((x: { type: string }) => x.type === 'ResolvedRefs');
  return c && { status: c.status, reason: c.reason, message: c.message };
}

describe('a Gateway\'s backend client certificate', () => {
  beforeAll(async () => {
    for (const [path, body] of [
      ['/api/v1/gatewayclasses/switchyard', { apiVersion: GW, kind: 'GatewayClass', spec: { controllerName: 'switchyard.dev/gateway-controller' } }],
      ['/api/v1/namespaces/infra/secrets/cert', secret],
      ['/api/v1/namespaces/infra/gateways/edge', {
        apiVersion: GW, kind: 'Gateway',
        spec: { gatewayClassName: 'switchyard', tls: { backend: { clientCertificateRef: { group: '', kind: 'Secret', name: 'cert' } } }, listeners: [{ name: 'http', protocol: 'HTTP', port: 80 }] },
      }],
    ] as const) {
      const r = await s.api('PUT', path, body);
      expect([200, 201], `${path}: ${JSON.stringify(r.body)}`).toContain(r.status);
    }
  });

  it('names a valid kubernetes.io/tls Secret: ResolvedRefs is True', async () => {
    expect(await resolvedRefs()).toMatchObject({ status: 'True', reason: 'ResolvedRefs' });
  });

  it('the Secret deleted, then written again: the Gateway follows both changes', async () => {
    expect((await s.api('DELETE', '/api/v1/namespaces/infra/secrets/cert')).status).toBe(200);
    expect(await resolvedRefs()).toMatchObject({ status: 'False', reason: 'InvalidClientCertificateRef' });
    expect((await s.api('PUT', '/api/v1/namespaces/infra/secrets/cert', secret)).status).toBe(201);
    expect(await resolvedRefs()).toMatchObject({ status: 'True', reason: 'ResolvedRefs' });
  });
});

describe('what a Gateway depends on follows its routes', () => {
  const deps = async () => (await s.running.ctx.db.sql.$queryRawUnsafe<{ dep: string }[]>(
    `SELECT dep FROM gateway_deps WHERE gateway LIKE '%Gateway/infra/edge' ORDER BY dep`)).map((r) => r.dep);
  const route = (backend: string) => ({
    apiVersion: GW, kind: 'HTTPRoute', spec: { parentRefs: [{ name: 'edge', namespace: 'infra' }], rules: [{ backendRefs: [{ name: backend, port: 80 }] }] },
  });
  const backendOf = async () => {
    const snap = await s.api('GET', '/api/v1/namespaces/infra/gateways/edge/snapshot');
    return JSON.stringify(snap.body);
  };

  it('records a backend a route names, forgets the one it stopped naming, and follows the new one\'s changes', async () => {
    const gw = await s.api('GET', '/api/v1/namespaces/infra/gateways/edge');
    const listeners = gw.body.spec.listeners.map((l: Record<string, unknown>) => ({ ...l, allowedRoutes: { namespaces: { from: 'All' } } }));
    expect([200, 201]).toContain((await s.api('PUT', '/api/v1/namespaces/infra/gateways/edge', { ...gw.body, spec: { ...gw.body.spec, listeners } })).status);
    expect([200, 201]).toContain((await s.api('PUT', '/api/v1/namespaces/team/httproutes/web', route('svc-a'))).status);
    await reconciled(s);
    const first = await deps();
    expect(first.filter((d) => d.includes('svc-a')).length).toBeGreaterThan(0);
    expect(first.filter((d) => d.includes('svc-b'))).toEqual([]);

    expect((await s.api('PUT', '/api/v1/namespaces/team/httproutes/web', route('svc-b'))).status).toBe(200);
    await reconciled(s);
    const second = await deps();
    expect(second.filter((d) => d.includes('svc-a'))).toEqual([]);
    expect(second.filter((d) => d.includes('svc-b')).length).toBeGreaterThan(0);
    // the keys that stayed are still there
    expect(second).toEqual(expect.arrayContaining(first.filter((d) => !d.includes('svc-a'))));

    // and the new backend's Service reaches the table once it is written
    expect(await backendOf()).not.toContain('10.9.9.9');
    for (const [path, body] of [
      ['/api/v1/namespaces/team/services/svc-b', { apiVersion: 'v1', kind: 'Service', spec: { ports: [{ name: 'http', port: 80, targetPort: 8080 }] } }],
      ['/api/v1/namespaces/team/endpointslices/svc-b-1', {
        apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { labels: { 'kubernetes.io/service-name': 'svc-b' } }, addressType: 'IPv4',
        endpoints: [{ addresses: ['10.9.9.9'], conditions: { ready: true } }], ports: [{ name: 'http', port: 8080 }],
      }],
    ] as const) expect((await s.api('PUT', path, body)).status).toBe(201);
    await reconciled(s);
    expect(await backendOf()).toContain('10.9.9.9');
  });
});

describe('events written before the touches column', () => {
  it('are stamped at start-up with the keys a write stamps', async () => {
    const db = s.running.ctx.db;
    const read = () => db.sql.$queryRawUnsafe<{ position: string; touches: string[] | null }[]>(`SELECT position::text, touches FROM events ORDER BY position`);
    const stamped = await read();
    expect(stamped.length).toBeGreaterThanOrEqual(5);
    expect(stamped.filter((e) => e.touches === null)).toEqual([]);
    expect(stamped.map((e) => e.touches)).toContainEqual(['Secret/infra/cert']);
    await db.sql.$executeRawUnsafe(`UPDATE events SET touches = NULL`);
    expect(await backfillTouches(db.sql)).toBe(stamped.length);
    expect(await read()).toEqual(stamped);
  });
});
