// Dropping the projections and replaying the log yields the identical state.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/server';
import { rebuildProjections } from '../../src/service/rebuild';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(async () => {
  await s?.close();
});

async function dump() {
  const objects = await s.running.ctx.db.prisma.$queryRawUnsafe<any[]>(`SELECT stream, kind, namespace, name, version, deleted, object::text AS object, position::text AS position FROM objects ORDER BY stream`);
  const secrets = await s.running.ctx.db.prisma.$queryRawUnsafe<any[]>(`SELECT stream, data::text AS data, digest FROM secret_data ORDER BY stream`);
  return { objects, secrets };
}

it('rebuild replays the log into identical projections and leaves secret data alone', async () => {
  const b64 = (x: string) => Buffer.from(x).toString('base64');
  for (let i = 0; i < 20; i++) {
    await s.api('PUT', `/api/v1/namespaces/ns${i % 3}/services/s${i}`, { apiVersion: 'v1', kind: 'Service', metadata: { labels: { i: String(i) } }, spec: { ports: [{ port: 80 + i }] } });
  }
  for (let i = 0; i < 20; i += 3) await s.api('PATCH', `/api/v1/namespaces/ns${i % 3}/services/s${i}`, { metadata: { labels: { patched: 'yes' } } });
  for (let i = 0; i < 20; i += 5) await s.api('DELETE', `/api/v1/namespaces/ns${i % 3}/services/s${i}`);
  await s.api('PUT', '/api/v1/namespaces/ns0/services/s0', { apiVersion: 'v1', kind: 'Service', spec: { ports: [{ port: 1 }] } });
  await s.api('PUT', '/api/v1/namespaces/ns0/secrets/tls', { apiVersion: 'v1', kind: 'Secret', type: 'kubernetes.io/tls', data: { 'tls.crt': b64('c'), 'tls.key': b64('k') } });
  await s.api('PUT', '/api/v1/gatewayclasses/gc', { apiVersion: 'gateway.networking.k8s.io/v1', kind: 'GatewayClass', spec: { controllerName: 'example.com/x' } });

  const before = await dump();
  // 20 Services (three deleted, s0 deleted and created again), the Secret, the GatewayClass
  expect(before.objects).toHaveLength(22);
  expect(before.objects.filter((o) => o.deleted).map((o) => o.stream)).toEqual(['Service/ns0/s15', 'Service/ns1/s10', 'Service/ns2/s5']);
  expect(before.secrets.map((x) => x.stream)).toEqual(['Secret/ns0/tls']);
  const out = await rebuildProjections(s.running.ctx.db);
  expect(out.objects).toBe(before.objects.length);
  const after = await dump();
  expect(after).toEqual(before);
  const g = await s.api('GET', '/api/v1/namespaces/ns0/secrets/tls');
  expect(g.body.data['tls.key']).toBe(b64('k'));
  expect((await s.api('GET', '/api/v1/namespaces/ns0/services/s5')).status).toBe(404);
});
