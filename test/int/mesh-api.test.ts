// The mesh (GAMMA) through the real service: the 23 mesh conformance cases written with PUT, the
// worker's route statuses for Service parents read back with GET, and every request entry asked of
// POST .../services/{name}/resolve with the client's namespace; then the delivery of mesh tables
// (versions, ETag, 304, long-poll, SSE watch) and the proxy token's mesh scope.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kindInfo } from '../../src/core/model/kinds';
import type { K8sObject } from '../../src/core/model/objects';
import { ADMIN_TOKEN, client, mintToken, reconciled, startTestServer, type TestServer } from '../support/server';
import { conformanceEndpointSlice } from '../support/conformance';
import { checkRequest, pickBackend } from '../unit/conformance-requests-harness';
import { loadMeshBase, loadMeshCases, meshRequestOf, meshRequests, withClusterIPs, workloadOf } from '../support/mesh-conformance';
import { sse } from '../support/sse';

const CONTROLLER = 'switchyard.dev/gateway-controller';
const MESH = 'gateway-conformance-mesh';
const cases = loadMeshCases();
const clusterIPs = new Map<string, string>();
let s: TestServer;

const pathOf = (o: { kind: string; metadata: { namespace?: string; name: string } }) => {
  const info = kindInfo(o.kind)!;
  return info.scope === 'Cluster' ? `/api/v1/${info.plural}/${o.metadata.name}` : `/api/v1/namespaces/${o.metadata.namespace}/${info.plural}/${o.metadata.name}`;
};

async function put(o: K8sObject): Promise<void> {
  for (const x of [o, ...(o.kind === 'Service' ? [conformanceEndpointSlice(o)].filter(Boolean) : [])]) {
    const r = await s.api('PUT', pathOf(x), x);
    if (r.status !== 200 && r.status !== 201) throw new Error(`PUT ${pathOf(x)}: ${r.status} ${r.text}`);
  }
}

beforeAll(async () => {
  s = await startTestServer({ controllerName: CONTROLLER, rateLimitPerSecond: 100_000, rateLimitBurst: 100_000 });
  for (const o of withClusterIPs(loadMeshBase(), clusterIPs)) await put(o);
  await reconciled(s, 45_000);
});

afterAll(async () => {
  await s?.close();
});

describe('mesh conformance through the API', () => {
  let requests = 0;
  for (const c of cases) {
    it(c.name, async () => {
      const manifests = withClusterIPs(c.manifests, clusterIPs);
      try {
        for (const o of manifests) await put(o);
        await reconciled(s, 45_000);
        for (const m of manifests.filter((o) => o.kind.endsWith('Route'))) {
          const got = (await s.api('GET', pathOf(m))).body;
          const ours = (got.status?.parents ?? []).filter((p: any) => p.controllerName === CONTROLLER);
          expect(ours.length, `${m.metadata.name}: ${JSON.stringify(got.status)}`).toBe(m.spec.parentRefs.length);
          for (const p of ours) {
            expect(p.parentRef).toMatchObject({ group: '', kind: 'Service' });
            expect(p.conditions.find((x: any) => x.type === 'Accepted')).toMatchObject({ status: 'True', observedGeneration: got.metadata.generation });
            expect(p.conditions.find((x: any) => x.type === 'ResolvedRefs')?.status).toBeDefined();
          }
        }
        const failures: string[] = [];
        for (const [i, r] of meshRequests(c).entries()) {
          requests++;
          const check = { caseName: c.name, where: `${c.name} request ${i}`, gateway: r.target, request: r.request, expect: r.expect };
          if (r.target.kind === 'Pod') {
            // straight to a pod: no Service frontend is involved, so the mesh table has nothing to say (MeshFrontend)
            expect(workloadOf(r)).toBe(r.expect.backend.name);
            continue;
          }
          // asked once; the checker's weighted draws pick from that answer's backends as resolve's own pick does
          const res = await s.api('POST', `/api/v1/namespaces/${r.target.namespace}/services/${r.target.name}/resolve`,
            { ...meshRequestOf(r), port: r.target.port, client: { namespace: r.client.namespace } });
          if (res.status !== 200) throw new Error(`resolve: ${res.status} ${res.text}`);
          const first = res.body;
          const result = checkRequest(check, undefined, (_req, ctx) => (ctx?.random === undefined ? first : drawn(first, ctx.random)));
          failures.push(...result.failures.map((f) => `${check.where}: ${f} | ${first.explanation.join(' ')}`));
        }
        expect(failures).toEqual([]);
      } finally {
        for (const o of [...manifests].reverse()) await s.api('DELETE', pathOf(o));
        await reconciled(s, 45_000);
      }
    });
  }

  it('went through every request of the corpus', () => {
    expect(requests).toBe(85);
  });
});

/** The answer a proxy's draw `random` gives: the backend resolve's own pick takes by weight. */
function drawn(answer: any, random: number): any {
  const chosen = pickBackend(answer.backends ?? [], random);
  return { ...answer, ...(chosen !== undefined ? { chosenBackend: chosen } : {}) };
}

describe('the mesh\'s features', () => {
  it('reports them as upstream\'s XMesh does, as its own list', async () => {
    const x = await s.api('GET', '/api/v1/xmeshes/switchyard');
    expect(x.status).toBe(200);
    expect(x.body).toMatchObject({ apiVersion: 'gateway.networking.x-k8s.io/v1alpha1', kind: 'XMesh', spec: { controllerName: CONTROLLER } });
    const names: string[] = x.body.status.supportedFeatures.map((f: any) => f.name);
    expect(names).toEqual([...names].sort());
    for (const c of cases) for (const f of c.features) expect(names, `${c.name} needs ${f}`).toContain(f);
    expect(x.body.status.conditions.find((c: any) => c.type === 'Accepted').status).toBe('True');
    expect((await s.api('GET', '/api/v1/xmeshes')).body.items).toHaveLength(1);
    expect((await s.api('GET', '/api/v1/xmeshes/other')).status).toBe(404);
  });
});

describe('mesh table delivery', () => {
  const snapshot = (ns: string, headers: Record<string, string> = {}, query = '', token?: string) =>
    (token ? client(s.url, token) : s.api)('GET', `/api/v1/namespaces/${ns}/mesh/snapshot${query}`, undefined, headers);

  it('serves each client namespace its table, with versions that move only when it changes', async () => {
    const first = await snapshot(MESH);
    expect(first.status).toBe(200);
    expect(first.headers.get('etag')).toBe(`"${first.body.version}"`);
    expect(first.body.table).toMatchObject({ format: 'switchyard.dev/mesh-table/v1', namespace: MESH, clusterDomain: 'cluster.local' });
    expect(first.body.table.services.map((x: any) => x.name)).toEqual(['echo', 'echo-v1', 'echo-v2']);
    expect((await snapshot(MESH, { 'If-None-Match': `"${first.body.version}"` })).status).toBe(304);
    // a label-only change to a Service changes no table: same version
    const svc = (await s.api('GET', `/api/v1/namespaces/${MESH}/services/echo-v2`)).body;
    await s.api('PUT', `/api/v1/namespaces/${MESH}/services/echo-v2`, { ...svc, metadata: { ...svc.metadata, labels: { touched: 'yes' } } });
    await reconciled(s, 45_000);
    expect((await snapshot(MESH)).body.version).toBe(first.body.version);
  });

  it('answers a long-poll when a route changes the table, and the watch sends the new version', async () => {
    const cur = (await snapshot(MESH)).body.version as number;
    const watch = await sse(`${s.url}/api/v1/namespaces/${MESH}/mesh/snapshot/watch`, { authorization: `Bearer ${ADMIN_TOKEN}` });
    const held = snapshot(MESH, { 'If-None-Match': `"${cur}"` }, '?wait=20');
    const route = {
      apiVersion: 'gateway.networking.k8s.io/v1', kind: 'HTTPRoute', metadata: { name: 'delivery-split', namespace: MESH },
      spec: { parentRefs: [{ group: '', kind: 'Service', name: 'echo', port: 80 }], rules: [{ backendRefs: [{ name: 'echo-v2', port: 80 }] }] },
    };
    try {
      const first = await watch.next();
      expect(first.event).toBe('snapshot');
      expect(Number(first.id)).toBe(cur);
      await s.api('PUT', pathOf(route), route);
      const r = await held;
      expect(r.status).toBe(200);
      expect(r.body.version).toBeGreaterThan(cur);
      const port = r.body.table.services.find((x: any) => x.name === 'echo').ports.find((p: any) => p.port === 80);
      expect(port.routeKind).toBe('HTTPRoute');
      const next = await watch.next();
      expect(Number(next.id)).toBe(r.body.version);
      expect(JSON.parse(next.data).table.services.find((x: any) => x.name === 'echo').ports[0].routeKind).toBe('HTTPRoute');
    } finally {
      watch.close();
      await s.api('DELETE', pathOf(route));
      await reconciled(s, 45_000);
    }
  });

  it('gives a proxy token with a mesh scope its namespace only', async () => {
    const token = await mintToken(s, { name: 'mesh-proxy', role: 'proxy', mesh: MESH });
    expect((await snapshot(MESH, {}, '', token)).status).toBe(200);
    expect((await snapshot('gateway-conformance-mesh-consumer', {}, '', token)).status).toBe(403);
    const bad = await s.api('POST', '/api/v1/tokens', { name: 'mesh-dev', role: 'developer', namespaces: [MESH], mesh: MESH });
    expect(bad.status).toBe(422);
    const listed = (await s.api('GET', '/api/v1/tokens')).body.items.find((t: any) => t.name === 'mesh-proxy');
    expect(listed.mesh).toBe(MESH);
  });

  it('refuses a resolve without a client namespace, and names a Service that does not exist', async () => {
    const none = await s.api('POST', `/api/v1/namespaces/${MESH}/services/echo/resolve`, { path: '/' });
    expect(none.status).toBe(400);
    expect(none.body.detail).toMatch(/client\.namespace/);
    const missing = await s.api('POST', `/api/v1/namespaces/${MESH}/services/nope/resolve`, { path: '/', client: { namespace: MESH } });
    expect(missing.status).toBe(404);
  });
});
