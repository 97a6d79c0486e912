// A client generated from openapi/ (openapi-fetch over src/generated/api.ts) is typed per kind: the
// HTTPRoute paths take and give HTTPRoute objects. Its calls run against the real server; the
// expect-error lines are checked by `npm run typecheck`, which fails if a body is untyped again.
import { afterAll, beforeAll, expect, it } from 'vitest';
import createClient from 'openapi-fetch';
import type { components, paths } from '../../src/generated/api';
import { ADMIN_TOKEN, startTestServer, type TestServer } from '../support/server';

type HTTPRoute = components['schemas']['HTTPRoute'];

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(async () => {
  await s?.close();
});

const api = () => createClient<paths>({ baseUrl: s.url, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
const path = { namespace: 'typed', name: 'web' };

it('PUTs an HTTPRoute through its own path and reads back an HTTPRoute', async () => {
  const route: HTTPRoute = {
    apiVersion: 'gateway.networking.k8s.io/v1',
    kind: 'HTTPRoute',
    metadata: { name: 'web' },
    spec: { parentRefs: [{ name: 'edge' }], hostnames: ['shop.example.com'] },
  };
  const put = await api().PUT('/api/v1/namespaces/{namespace}/httproutes/{name}', { params: { path }, body: route });
  expect(put.response.status).toBe(201);
  const got = await api().GET('/api/v1/namespaces/{namespace}/httproutes/{name}', { params: { path } });
  // typed: spec.hostnames is reachable without a cast
  expect(got.data?.spec.hostnames).toEqual(['shop.example.com']);
  expect(got.data?.spec.rules?.[0].matches?.[0].path).toEqual({ type: 'PathPrefix', value: '/' });
});

it('lists HTTPRoutes as an HTTPRouteList', async () => {
  const list = await api().GET('/api/v1/namespaces/{namespace}/httproutes', { params: { path: { namespace: 'typed' } } });
  expect(list.data?.kind).toBe('HTTPRouteList');
  expect(list.data?.items.map((r) => r.spec.parentRefs?.[0].name)).toEqual(['edge']);
});

it('refuses, at compile time, a body that is not an HTTPRoute; the server refuses it too', async () => {
  const res = await api().PUT('/api/v1/namespaces/{namespace}/httproutes/{name}', {
    params: { path: { namespace: 'typed', name: 'bad' } },
    body: {
      apiVersion: 'gateway.networking.k8s.io/v1',
      kind: 'HTTPRoute',
      metadata: { name: 'bad' },
      // @ts-expect-error parentRefs is an array of references, not a string
      spec: { parentRefs: 'edge' },
    },
  });
  expect(res.response.status).toBe(422);
  expect(res.error).toMatchObject({ status: 422, errors: expect.arrayContaining([expect.objectContaining({ path: 'spec.parentRefs' })]) });
});
