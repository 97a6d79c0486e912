// Gateway addresses and infrastructure through the real server and worker, with the address pool
// the operator configures (SWITCHYARD_ADDRESS_POOL as Config.addressPool).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reconciled, startTestServer, type TestServer } from '../support/server';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({ addressPool: ['192.0.2.5', 'edge.example.com'] });
  const r = await s.api('PUT', '/api/v1/gatewayclasses/switchyard', { apiVersion: GW, kind: 'GatewayClass', spec: { controllerName: 'switchyard.dev/gateway-controller' } });
  expect(r.status).toBeLessThan(300);
});
afterAll(async () => {
  await s?.close();
});

const GW = 'gateway.networking.k8s.io/v1';
const gateway = (name: string, spec: Record<string, unknown>) => ({
  apiVersion: GW, kind: 'Gateway', spec: { gatewayClassName: 'switchyard', listeners: [{ name: 'http', protocol: 'HTTP', port: 80 }], ...spec },
});

async function status(name: string) {
  await reconciled(s);
  const r = await s.api('GET', `/api/v1/namespaces/infra/gateways/${name}`);
  expect(r.status).toBe(200);
  return r.body.status;
}
const programmed = (st: any) => st.conditions.find((c: any) => c.type === 'Programmed');

describe('addresses from the pool', () => {
  it('an entry without a value is given one; the snapshot carries it and the infrastructure', async () => {
    const put = await s.api('PUT', '/api/v1/namespaces/infra/gateways/auto', gateway('auto', {
      addresses: [{ type: 'IPAddress' }], infrastructure: { labels: { team: 'edge' }, annotations: { note: 'x' } },
    }));
    expect(put.status).toBe(201);
    const st = await status('auto');
    expect(st.addresses).toEqual([{ type: 'IPAddress', value: '192.0.2.5' }]);
    expect(programmed(st)).toMatchObject({ status: 'True' });
    const snap = await s.api('GET', '/api/v1/namespaces/infra/gateways/auto/snapshot');
    expect(snap.status).toBe(200);
    expect(snap.body.table.addresses).toEqual([{ type: 'IPAddress', value: '192.0.2.5' }]);
    expect(snap.body.table.infrastructure).toEqual({
      labels: { 'gateway.networking.k8s.io/gateway-name': 'auto', team: 'edge' }, annotations: { note: 'x' },
    });
  });

  it('a value outside the pool is Programmed False/AddressNotUsable naming it; removing it programs the Gateway', async () => {
    await s.api('PUT', '/api/v1/namespaces/infra/gateways/static', gateway('static', {
      addresses: [{ type: 'IPAddress', value: '203.0.113.9' }, { type: 'Hostname', value: 'edge.example.com' }],
    }));
    let st = await status('static');
    expect(st.conditions.find((c: any) => c.type === 'Accepted')).toMatchObject({ status: 'True' });
    expect(programmed(st)).toMatchObject({ status: 'False', reason: 'AddressNotUsable' });
    expect(programmed(st).message).toContain('203.0.113.9');
    expect(st.addresses).toEqual([{ type: 'Hostname', value: 'edge.example.com' }]);
    await s.api('PUT', '/api/v1/namespaces/infra/gateways/static', gateway('static', { addresses: [{ type: 'Hostname', value: 'edge.example.com' }] }));
    st = await status('static');
    expect(programmed(st)).toMatchObject({ status: 'True', reason: 'Programmed' });
  });
});
