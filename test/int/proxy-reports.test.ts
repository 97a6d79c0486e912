// A proxy that stops reporting leaves its Gateway's list once the time to live has passed.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/server';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({ proxyReportTtlSeconds: 1 }, { worker: false });
});
afterAll(async () => {
  await s?.close();
});

it('lists a proxy while it reports, and no more once it has gone quiet', async () => {
  const put = await s.api('PUT', '/api/v1/namespaces/infra/gateways/edge/proxies/p-1', { version: null, hash: null });
  expect(put.status).toBe(200);
  expect(put.body).toMatchObject({ id: 'p-1', version: null, state: 'NOT_SENT' });
  expect((await s.api('GET', '/api/v1/namespaces/infra/gateways/edge/proxies')).body.items.map((p: { id: string }) => p.id)).toEqual(['p-1']);
  await new Promise((r) => setTimeout(r, 1500));
  expect((await s.api('GET', '/api/v1/namespaces/infra/gateways/edge/proxies')).body).toEqual({ snapshotVersion: null, items: [] });
});
