// The 23 mesh (GAMMA) conformance cases against the pure core: every route's Service parents
// (status.parents with our controllerName, Accepted and ResolvedRefs True), and every request
// entry evaluated by the mesh resolve on the mesh table of the client's namespace, checked by the
// same checker as the Gateway corpus's requests.
import { describe, expect, it } from 'vitest';
import { checkRequest, ConformanceStore, CONTROLLER, NOW, type Outcome } from './conformance-requests-harness';
import { compileMesh, findService, findTarget, byName, portOf, meshParentOutcomes, meshRouteParents, resolveMesh, MESH_FEATURES } from '../../src/core/mesh';
import { viewOf } from '../../src/core/refs/lookup';
import { SUPPORTED_FEATURES } from '../../src/core/status/features';
import type { ResolveResponse } from '../../src/core/resolve';
import { meshRequestOf, loadMeshBase, loadMeshCases, meshRequests, meshTotals, withClusterIPs, workloadOf } from '../support/mesh-conformance';

const cases = loadMeshCases();
const base = loadMeshBase();
const totals = meshTotals();

/** The store of a case: the mesh base and the case's manifests, Services given cluster IPs. */
function storeOf(manifests: any[]): ConformanceStore {
  const store = new ConformanceStore();
  for (const o of withClusterIPs([...base, ...manifests])) store.apply(o);
  return store;
}

/** A request straight to a pod's address: no Service frontend, so no route (MeshFrontend). */
function toPod(r: any, table: ReturnType<typeof compileMesh>, podIP: string): ResolveResponse {
  const service = findService(table, podIP);
  if (service) throw new Error(`pod address ${podIP} is the cluster IP of Service ${service.namespace}/${service.name}`);
  const name = workloadOf(r);
  return {
    matched: false, forwarded: true, listener: null, route: null, ruleIndex: null, decidedBy: null,
    backends: [{ kind: 'Pod', namespace: r.target.namespace, name, port: r.target.port, weight: 1, valid: true } as never], chosenBackend: 0,
    explanation: [`${podIP} is no Service's cluster IP: the request goes straight to the pod, and no route applies.`],
  } as ResolveResponse;
}

describe('mesh conformance (core)', () => {
  it('finds the corpus', () => {
    expect(cases.length).toBe(23);
    expect(cases.reduce((n, c) => n + meshRequests(c).length, 0)).toBe(totals.requestExpectations);
  });

  const outcomes: Outcome[] = [];
  let statuses = 0;
  for (const c of cases) {
    it(c.name, () => {
      const missing = c.features.filter((f) => !MESH_FEATURES.includes(f));
      expect(missing, `features the mesh does not claim: ${missing}`).toEqual([]);
      const world = storeOf(c.manifests).world();
      // statuses: every Service parentRef of every route is ours, accepted, its references resolved
      const view = viewOf(world);
      const parents = meshRouteParents(view, meshParentOutcomes(view), CONTROLLER, NOW, () => undefined);
      for (const m of c.manifests.filter((o) => o.kind.endsWith('Route'))) {
        const entry = parents.find((p) => p.kind === m.kind && p.namespace === m.metadata.namespace && p.name === m.metadata.name);
        expect(entry?.parents.length, `${m.kind} ${m.metadata.name} parents`).toBe(m.spec.parentRefs.length);
        // a backendRef to a Service that exists nowhere (MeshGRPCRouteWeight's echo-v3) leaves ResolvedRefs False
        const services = new Set([...base, ...c.manifests].filter((o) => o.kind === 'Service').map((o) => `${o.metadata.namespace}/${o.metadata.name}`));
        const dangling = m.spec.rules.some((rule: any) => (rule.backendRefs ?? []).some((b: any) => !services.has(`${b.namespace ?? m.metadata.namespace}/${b.name}`)));
        for (const p of entry!.parents) {
          expect(p.controllerName).toBe(CONTROLLER);
          expect(p.parentRef).toMatchObject({ group: '', kind: 'Service' });
          const at = (type: string) => p.conditions.find((x) => x.type === type);
          expect(at('Accepted'), `${m.metadata.name}: ${JSON.stringify(p.conditions)}`).toMatchObject({ status: 'True', observedGeneration: 1 });
          expect(at('ResolvedRefs'), `${m.metadata.name}: ${JSON.stringify(p.conditions)}`)
            .toMatchObject(dangling ? { status: 'False', reason: 'BackendNotFound' } : { status: 'True', reason: 'ResolvedRefs' });
          statuses += 2;
        }
      }
      const tables = new Map<string, ReturnType<typeof compileMesh>>();
      const tableOf = (ns: string) => tables.get(ns) ?? tables.set(ns, compileMesh(world, ns)).get(ns)!;
      const got = meshRequests(c).map((r, i) => {
        const table = tableOf(r.client.namespace);
        const check = { caseName: c.name, where: `${c.name} request ${i}`, gateway: r.target, request: r.request, expect: r.expect };
        if (r.target.kind === 'Pod') {
          const podIP = '10.1.0.1';
          return checkRequest(check, undefined, () => toPod(r, table, podIP));
        }
        // the client connects to the Service's cluster IP: the table finds the Service by that address
        const svc = byName(table, r.target.namespace, r.target.name)!;
        const target = findTarget(table, `${svc.clusterIPs[0]}:${r.target.port}`);
        expect(target?.service, `${r.target.name} by its cluster IP`).toBe(svc);
        expect(target?.port).toBe(portOf(svc, r.target.port));
        return checkRequest(check, undefined, (req, ctx) => resolveMesh(table, target!, { ...req, ...meshRequestOf(r), port: r.target.port }, ctx));
      });
      outcomes.push(...got);
      const bad = got.filter((o) => o.failures.length);
      expect(bad.map((o) => `${o.check.where}: ${o.failures.join('; ')} | ${o.response?.explanation.join(' ')}`)).toEqual([]);
    });
  }

  it('keeps the mesh\'s features apart from the GatewayClass\'s', () => {
    expect(SUPPORTED_FEATURES.filter((f) => f.startsWith('Mesh'))).toEqual([]);
    expect(MESH_FEATURES).toContain('Mesh');
  });

  it('the checker catches a route that does not apply', () => {
    // MeshConsumerRoute from the consumer namespace, evaluated on the producer's table: the header is missing
    const c = cases.find((x) => x.name === 'MeshConsumerRoute')!;
    const world = storeOf(c.manifests).world();
    const r = meshRequests(c)[0];
    const table = compileMesh(world, 'gateway-conformance-mesh');
    const svc = byName(table, r.target.namespace, r.target.name)!;
    const out = checkRequest({ caseName: 't', where: 't', gateway: r.target, request: r.request, expect: r.expect }, undefined,
      (req, ctx) => resolveMesh(table, { service: svc, port: portOf(svc, 80)! }, { ...req, ...meshRequestOf(r), port: 80 }, ctx));
    expect(out.failures).not.toEqual([]);
  });

  it('prints the count', () => {
    const failed = outcomes.filter((o) => o.failures.length).length;
    console.log(`mesh conformance through resolve: ${outcomes.length - failed} passed, ${failed} failed of ${outcomes.length} requests; ${statuses} route parent conditions checked`);
    expect(outcomes.length).toBe(totals.requestExpectations);
    expect(failed).toBe(0);
  });
});
