// Incremental translation and delta delivery held against a full recompute: random sequences of
// changes to one Gateway's world (routes added, removed, edited and re-parented, backends and
// endpoints changed, listeners added, removed and renamed). After each change, the table and the
// statuses translated in the context kept across the sequence, and the table a client rebuilds
// by applying the delta to what it held, are byte-identical to a fresh translation of a copy of
// the world in a fresh context, and the parts made incrementally and the rebuilt ones hash as the
// fresh table's parts do.
import { describe, expect, it } from 'vitest';
import { worldOf, CONTROLLER } from '../support/compile-world';
import { translate, translationCounts, TranslationContext } from '../../src/core/translate';
import { compileGateway } from '../../src/core/compile';
import { tableOfParts, tableParts, textPart } from '../../src/core/snapshot/table-parts';
import { applyChanges, applyDelta, snapshotDelta, snapshotDeltaText } from '../../src/core/snapshot/delta';
import { hashWork, tableHash } from '../../src/core/snapshot/table-hash';
import { tableTextOfParts } from '../../src/core/snapshot/table-text';
import type { World } from '../../src/core/model/world';

const GW = 'gateway.networking.k8s.io/v1';
const now = '2026-03-02T00:00:00.000Z';
const ref = { namespace: 'infra', name: 'edge' };
const SEEDS = [1, 2, 3, 4, 5, 6];
const STEPS = 60;

/** A small seeded generator: the same sequences on every run. */
function rng(seed: number) {
  let x = seed * 2654435761 >>> 0;
  const next = () => ((x = (x * 1103515245 + 12345) >>> 0) / 2 ** 32);
  return { next, int: (n: number) => Math.floor(next() * n), pick: <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)] };
}

type R = ReturnType<typeof rng>;
let serial = 0;

function listeners(r: R) {
  const ls: any[] = [
    { name: 'http', port: 80, protocol: 'HTTP', allowedRoutes: { namespaces: { from: 'All' } } },
    { name: 'shop', port: 80, protocol: 'HTTP', hostname: '*.shop.example', allowedRoutes: { namespaces: { from: 'All' } } },
    { name: 'alt', port: 8080, protocol: 'HTTP', allowedRoutes: { namespaces: { from: 'All' } } },
    { name: 'tcp', port: 9000, protocol: 'TCP', allowedRoutes: { namespaces: { from: 'All' } } },
  ];
  return ls.filter((l, i) => i === 0 || r.next() < 0.7).map((l) => (r.next() < 0.1 ? { ...l, name: `${l.name}-${++serial}` } : l));
}

function gateway(r: R) {
  return { apiVersion: GW, kind: 'Gateway', metadata: { name: 'edge', namespace: 'infra' }, spec: { gatewayClassName: 'switchyard', listeners: listeners(r) } };
}

function httpRoute(r: R, name: string) {
  const rules = Array.from({ length: 1 + r.int(3) }, () => ({
    matches: Array.from({ length: r.int(3) }, () => ({
      path: { type: r.pick(['PathPrefix', 'Exact'] as const), value: `/${r.pick(['a', 'b', 'c', 'api', ''])}${r.int(3) || ''}` },
      ...(r.next() < 0.2 ? { method: r.pick(['GET', 'POST']) } : {}),
      ...(r.next() < 0.2 ? { headers: [{ name: 'x-v', value: String(r.int(3)) }] } : {}),
    })),
    backendRefs: Array.from({ length: r.int(3) }, () => ({ name: r.pick(['web', 'api', 'gone']), port: 80, weight: r.int(4) })),
  }));
  return {
    apiVersion: GW, kind: 'HTTPRoute',
    metadata: { name, namespace: r.pick(['app', 'team']), creationTimestamp: new Date(Date.parse('2026-03-01T10:00:00.000Z') + r.int(5) * 1000).toISOString() },
    spec: {
      parentRefs: [{ name: 'edge', namespace: 'infra', ...(r.next() < 0.3 ? { sectionName: r.pick(['http', 'shop', 'alt', 'nope']) } : {}) }],
      ...(r.next() < 0.4 ? { hostnames: [r.pick(['a.shop.example', 'www.example', '*.shop.example'])] } : {}),
      rules,
    },
  };
}

function tcpRoute(r: R, name: string) {
  return {
    apiVersion: 'gateway.networking.k8s.io/v1alpha2', kind: 'TCPRoute', metadata: { name, namespace: 'app' },
    spec: { parentRefs: [{ name: 'edge', namespace: 'infra' }], rules: [{ backendRefs: [{ name: r.pick(['web', 'api']), port: 80 }] }] },
  };
}

const service = (ns: string, name: string, endpoints: number) => ({
  apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: ns, annotations: { 'test/endpoints': String(endpoints) } }, spec: { ports: [{ name: 'http', port: 80 }] },
});

/** Objects made as the world's are (defaults applied), standing alone. */
function made(objects: any[]): World {
  return worldOf(objects);
}

/** One random change: a new World sharing every object it does not change. */
function change(w: World, r: R): World {
  const routes = [...w.routes];
  switch (r.int(7)) {
    case 0: // a route added
      return { ...w, routes: [...routes, ...made([r.next() < 0.8 ? httpRoute(r, `n${++serial}`) : tcpRoute(r, `t${++serial}`)]).routes] };
    case 1: // a route removed
      return routes.length ? { ...w, routes: routes.filter((_, i) => i !== r.int(routes.length)) } : w;
    case 2: case 3: { // a route replaced by a new version of itself
      if (!routes.length) return w;
      const i = r.int(routes.length);
      const old = routes[i];
      const next = made([old.kind === 'HTTPRoute' ? httpRoute(r, old.metadata.name) : tcpRoute(r, old.metadata.name)]).routes.at(0)!;
      next.metadata = { ...next.metadata, namespace: old.metadata.namespace, creationTimestamp: old.metadata.creationTimestamp, generation: (old.metadata.generation ?? 1) + 1 };
      return { ...w, routes: routes.map((o, k) => (k === i ? next : o)) };
    }
    case 4: { // a Service's endpoints changed
      const s = made([service(r.pick(['app', 'team']), r.pick(['web', 'api']), r.int(3))]);
      const key = (o: any) => `${o.metadata.namespace}/${o.metadata.name}`;
      const gone = new Set(s.services.map(key));
      return {
        ...w,
        services: [...w.services.filter((o) => !gone.has(key(o))), ...s.services],
        endpointSlices: [...w.endpointSlices.filter((o) => !s.endpointSlices.some((n) => key(n) === key(o))), ...s.endpointSlices],
      };
    }
    case 5: // the Gateway's listeners changed
      return { ...w, gateways: made([gateway(r)]).gateways };
    default: // nothing changed (the same objects again)
      return { ...w };
  }
}

type Previous = { gatewayStatus?: any; parts?: Map<string, Record<string, unknown>> };

/** `previous`: what the last recompute wrote, as the worker passes it (the parts as that recompute made them). */
function translated(w: World, ctx: TranslationContext, previous?: Previous, at = now) {
  const t = translate(w, ref, { controllerName: CONTROLLER, now: at }, previous, ctx)!;
  const parts = new Map<string, Record<string, unknown>>();
  for (const r of t.routeParents) {
    const stream = `${r.kind}/${r.namespace}/${r.name}`;
    const was = previous?.parts?.get(stream);
    parts.set(stream, was && was.parents === r.parents ? was : { parents: r.parents });
  }
  return {
    text: JSON.stringify(t.table), table: t.table, parts: t.compiledParts, attachment: t.attachment, statuses: JSON.stringify({ gw: t.gatewayStatus, routes: t.routeParents }),
    written: { gatewayStatus: t.gatewayStatus, parts } as Previous,
  };
}

describe('incremental translation and deltas against a full recompute', () => {
  for (const seed of SEEDS) {
    it(`random sequence ${seed}`, () => {
      const r = rng(seed);
      let world = made([
        gateway(r),
        ...['app', 'team'].flatMap((ns) => [service(ns, 'web', 2), service(ns, 'api', 1)]),
        { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'app' } }, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team' } },
        ...Array.from({ length: 12 }, (_, i) => httpRoute(r, `r${i}`)), tcpRoute(r, 't0'),
      ]);
      const ctx = new TranslationContext();
      let server = translated(world, ctx);
      // the server's parts are the worker's: compile's, kept with what they were made from
      let serverParts = server.parts;
      let client = { version: 1, parts: tableParts(JSON.parse(server.text)) };
      // a reader holding the parts as their text alone (the API, for its whole-snapshot clients)
      let reader = tableParts(JSON.parse(server.text), undefined, textPart);
      let deltas = 0;
      const cutWhole = hashWork.editedCutWhole;
      for (let step = 0; step < STEPS; step++) {
        world = change(world, r);
        // a later time at every step: a condition that did not change keeps its lastTransitionTime
        const at = new Date(Date.parse(now) + (step + 1) * 1000).toISOString();
        const incremental = translated(world, ctx, server.written, at);
        const fresh = translated(structuredClone(world), new TranslationContext(), structuredClone(server.written), at);
        expect(incremental.text, `step ${step}`).toBe(fresh.text);
        // the parts compile makes are the reference compile's table, taken apart
        expect(JSON.stringify(compileGateway(fresh.attachment, structuredClone(world), { includeUnattached: false })), `step ${step}`).toBe(fresh.text);
        expect(incremental.statuses, `step ${step}`).toBe(fresh.statuses);
        // the delta travels as JSON and is applied to what the client held
        const nextParts = incremental.parts;
        expect(JSON.stringify(tableOfParts(nextParts)), `step ${step}`).toBe(fresh.text);
        expect(tableTextOfParts(nextParts), `step ${step}`).toBe(fresh.text);
        // the hash over the parts made incrementally is the hash of the fresh table's own parts
        const hash = tableHash(tableParts(fresh.table), []);
        expect(tableHash(nextParts, []), `step ${step}`).toBe(hash);
        const text = snapshotDeltaText(ref, client.version, client.version + 1, hash, serverParts, nextParts);
        // the text the worker sends sets the parts' texts in as they are: the same as the delta written whole
        expect(text, `step ${step}`).toBe(JSON.stringify(snapshotDelta(ref, client.version, client.version + 1, hash, serverParts, nextParts)));
        const d = JSON.parse(text);
        if (d.changes.length || d.head) deltas++;
        const out = applyDelta(client.parts, client.version, d, []);
        expect(JSON.stringify(out.table), `step ${step}`).toBe(fresh.text);
        // and a reader that holds parts writes the same text from them (the API's whole bodies)
        expect(tableTextOfParts(out.parts), `step ${step}`).toBe(fresh.text);
        reader = applyChanges(reader, d, textPart);
        expect(tableTextOfParts(reader), `step ${step}`).toBe(fresh.text);
        expect(tableHash(reader, []), `step ${step}`).toBe(hash);
        client = { version: client.version + 1, parts: out.parts };
        server = incremental;
        serverParts = nextParts;
      }
      // the sequence did change the table, most of the time
      expect(deltas).toBeGreaterThan(STEPS / 3);
      // and changes to routes alone were merged into the last translation, not translated whole
      expect(translationCounts(ctx).merged).toBeGreaterThan(STEPS / 4);
      // every list a merge or a delta made was hashed from the chunks of the one before (the worker,
      // and a client checking each delta)
      expect(hashWork.editedCutWhole - cutWhole).toBe(0);
    });
  }
});
