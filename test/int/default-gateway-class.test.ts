// First contact: the server creates the GatewayClass `switchyard` for its controller on first start,
// Accepted by the worker, so that a Gateway naming it is programmed with no setup step; a later
// start leaves the class alone, even once an operator has deleted it.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { reconciled, startTestServer, type TestServer } from '../support/server';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({ defaultGatewayClass: 'switchyard' });
});
afterAll(async () => {
  await s?.close();
});

it('is there on first start, ours and Accepted, and a Gateway naming it is Programmed', async () => {
  await reconciled(s);
  const gc = await s.api('GET', '/api/v1/gatewayclasses/switchyard');
  expect(gc.status).toBe(200);
  expect(gc.body.spec.controllerName).toBe('switchyard.dev/gateway-controller');
  expect(gc.body.status.conditions.find((c: { type: string }) => c.type === 'Accepted')).toMatchObject({ status: 'True', reason: 'Accepted' });
  const history = await s.api('GET', '/api/v1/gatewayclasses/switchyard/history');
  expect(history.body.items.map((h: { type: string; actor: string }) => `${h.type} by ${h.actor}`)).toEqual(['Created by system:bootstrap']);

  const gw = await s.api('PUT', '/api/v1/namespaces/infra/gateways/edge', {
    apiVersion: 'gateway.networking.k8s.io/v1', kind: 'Gateway', spec: { gatewayClassName: 'switchyard', listeners: [{ name: 'http', protocol: 'HTTP', port: 80 }] },
  });
  expect(gw.status).toBe(201);
  await reconciled(s);
  const got = await s.api('GET', '/api/v1/namespaces/infra/gateways/edge');
  expect(got.body.status.conditions.find((c: { type: string }) => c.type === 'Programmed')).toMatchObject({ status: 'True' });
});

it('is not made again by a later start once deleted', async () => {
  expect((await s.api('DELETE', '/api/v1/gatewayclasses/switchyard')).status).toBe(200);
  const again = await startTestServer({ defaultGatewayClass: 'switchyard' }, { sameDatabaseAs: s, worker: false });
  try {
    expect((await again.api('GET', '/api/v1/gatewayclasses/switchyard')).status).toBe(404);
  } finally {
    await again.close();
  }
});

it('takes the name it is configured with', async () => {
  const named = await startTestServer({ defaultGatewayClass: 'edge-class' }, { worker: false });
  try {
    const gc = await named.api('GET', '/api/v1/gatewayclasses/edge-class');
    expect(gc.status).toBe(200);
    expect(gc.body.spec.controllerName).toBe('switchyard.dev/gateway-controller');
    expect((await named.api('GET', '/api/v1/gatewayclasses/switchyard')).status).toBe(404);
  } finally {
    await named.close();
  }
});
