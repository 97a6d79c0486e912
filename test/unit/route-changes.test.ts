// Changes to a few routes of a Gateway with many, translated by merging the changed routes' share
// into the last translation (src/core/translate/route-changes.ts), held against a whole translation
// of the same world in a fresh context after every change: the same table text, the same statuses
// and unattached routes, the same hash, and a delta that leads a client from the last table to the
// new one. The routes are HTTP and GRPC routes over listeners with and without hostnames, some
// rejected (a section that is not there, a hostname no listener has), some naming missing
// backends; and some steps hand the translation status entries it did not make itself (as when
// they were read back from the store), which must make those routes again.
import { describe, expect, it } from 'vitest';
import { worldOf, CONTROLLER } from '../support/compile-world';
import { translate, translationCounts, TranslationContext } from '../../src/core/translate';
import { tableParts } from '../../src/core/snapshot/table-parts';
import { applyDelta, snapshotDelta } from '../../src/core/snapshot/delta';
import { hashWork, tableHash } from '../../src/core/snapshot/table-hash';
import { tableTextOfParts } from '../../src/core/snapshot/table-text';
import type { World } from '../../src/core/model/world';
import { planRecompute } from '../../src/service/recompute-plan';
import type { Written as Stored } from '../../src/adapters/store/recompute-write';

const GW = 'gateway.networking.k8s.io/v1';
const ref = { namespace: 'infra', name: 'edge' };
const epoch = Date.parse('2026-03-02T00:00:00.000Z');

function rng(seed: number) {
  let x = (seed * 2654435761) >>> 0;
  const next = () => (x = (x * 1103515245 + 12345) >>> 0) / 2 ** 32;
  return { next, int: (n: number) => Math.floor(next() * n), pick: <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)] };
}
type R = ReturnType<typeof rng>;

const gateway = {
  apiVersion: GW, kind: 'Gateway', metadata: { name: 'edge', namespace: 'infra' },
  spec: {
    gatewayClassName: 'switchyard', listeners: [
      { name: 'http', port: 80, protocol: 'HTTP', allowedRoutes: { namespaces: { from: 'All' } } },
      { name: 'shop', port: 80, protocol: 'HTTP', hostname: '*.shop.example', allowedRoutes: { namespaces: { from: 'All' } } },
      { name: 'api', port: 8080, protocol: 'HTTP', hostname: 'api.example', allowedRoutes: { namespaces: { from: 'Same' } } },
    ],
  },
};

function route(r: R, name: string, kind = r.next() < 0.8 ? 'HTTPRoute' : 'GRPCRoute') {
  const http = kind === 'HTTPRoute';
  const rules = Array.from({ length: 1 + r.int(2) }, () => ({
    matches: Array.from({ length: r.int(3) }, () => (http
      ? { path: { type: r.pick(['PathPrefix', 'Exact'] as const), value: `/${r.pick(['a', 'b', 'api', ''])}${r.int(4) || ''}` }, ...(r.next() < 0.2 ? { method: 'GET' } : {}) }
      : { method: { service: r.pick(['shop.Cart', 'shop.Pay']), method: r.pick(['Get', 'Put']) } })),
    backendRefs: Array.from({ length: r.int(3) }, () => ({ name: r.pick(['web', 'api', 'gone']), port: 80, weight: r.int(4) })),
  }));
  return {
    apiVersion: GW, kind,
    metadata: { name, namespace: r.pick(['app', 'team', 'infra']), creationTimestamp: new Date(epoch - r.int(4) * 1000).toISOString(), generation: 1 },
    spec: {
      parentRefs: [{ name: 'edge', namespace: 'infra', ...(r.next() < 0.2 ? { sectionName: r.pick(['http', 'shop', 'api', 'nope']) } : {}) }],
      ...(r.next() < 0.5 ? { hostnames: [r.pick(['a.shop.example', 'www.example', '*.shop.example', 'api.example', 'none.test'])] } : {}),
      rules,
    },
  };
}

const objectsOf = (r: R, n: number) => [
  gateway,
  ...['app', 'team', 'infra'].flatMap((ns) => [
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } },
    { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: ns, annotations: { 'test/endpoints': '2' } }, spec: { ports: [{ name: 'http', port: 80 }] } },
    { apiVersion: 'v1', kind: 'Service', metadata: { name: 'api', namespace: ns, annotations: { 'test/endpoints': '1' } }, spec: { ports: [{ name: 'http', port: 80 }] } },
  ]),
  ...Array.from({ length: n }, (_, i) => route(r, `r${i}`)),
];

/** One to `most` routes added, removed or replaced: a new World sharing every other object. */
function change(w: World, r: R, serial: { n: number }, most: number): World {
  let routes = [...w.routes];
  for (let k = 1 + r.int(most); k > 0; k--) {
    const i = r.int(routes.length);
    switch (r.int(4)) {
      case 0:
        routes = [...routes, ...worldOf([route(r, `n${++serial.n}`)]).routes];
        break;
      case 1:
        routes = routes.filter((_, j) => j !== i);
        break;
      default: {
        const old = routes[i];
        const next = worldOf([route(r, old.metadata.name, old.kind)]).routes.at(0)!;
        next.metadata = { ...next.metadata, namespace: old.metadata.namespace, creationTimestamp: old.metadata.creationTimestamp, generation: (old.metadata.generation ?? 1) + 1 };
        routes = routes.map((o, j) => (j === i ? next : o));
      }
    }
  }
  return { ...w, routes };
}

/** The entries as another writer left them: the first condition of each with the other status. */
function otherStatus(v: Record<string, unknown>): Record<string, unknown> {
  const out = structuredClone(v) as { parents: { conditions: { status: string; lastTransitionTime: string }[] }[] };
  for (const p of out.parents) if (p.conditions[0]) Object.assign(p.conditions[0], { status: p.conditions[0].status === 'True' ? 'False' : 'True', lastTransitionTime: '2020-01-01T00:00:00.000Z' });
  return out as never;
}

type Written = { gatewayStatus?: any; parts: Map<string, Record<string, unknown>> };

function translated(w: World, ctx: TranslationContext, previous: Written | undefined, at: string) {
  const t = translate(w, ref, { controllerName: CONTROLLER, now: at }, previous, ctx)!;
  // what the worker's plan keeps of them (service/recompute-plan.ts): an entry it did not remake is the one written
  const parts = new Map<string, Record<string, unknown>>();
  for (const r of t.routeParents) {
    const stream = `${r.kind}/${r.namespace}/${r.name}`;
    const was = previous?.parts.get(stream);
    parts.set(stream, was && was.parents === r.parents ? was : { parents: r.parents });
  }
  return {
    t, text: tableTextOfParts(t.compiledParts),
    statuses: JSON.stringify({ gw: t.gatewayStatus, routes: t.routeParents, unattached: t.unattached }),
    written: { gatewayStatus: t.gatewayStatus, parts } as Written,
  };
}

describe('a change to a few routes, merged into the last translation', () => {
  // the last: changes of up to 60 routes at once of some 300 (a quarter of them may change at once, and a few more are made again for their written entries)
  // and one long enough that its lists are held in several chunks (model/chunked-list, 512 to a chunk)
  for (const [seed, size, most, steps] of [[11, 120, 5, 50], [12, 120, 5, 50], [13, 120, 5, 50], [14, 120, 5, 50], [15, 300, 60, 50], [16, 1200, 4, 12]]) {
    it(`gives what a whole translation gives (sequence ${seed}: ${size} routes, up to ${most} changed at once)`, () => {
      const r = rng(seed);
      const serial = { n: 0 };
      let world = worldOf(objectsOf(r, size));
      const ctx = new TranslationContext();
      let server = translated(world, ctx, undefined, new Date(epoch).toISOString());
      let client = { version: 1, parts: tableParts(JSON.parse(server.text)) };
      const cutWhole = hashWork.editedCutWhole;
      for (let step = 0; step < steps; step++) {
        world = change(world, r, serial, most);
        const at = new Date(epoch + (step + 1) * 1000).toISOString();
        // now and then some entries written are not the ones made (another process wrote them, here
        // with a condition of another status): those routes are made again from what was written
        const written = step % 7 === 3 ? { ...server.written, parts: new Map([...server.written.parts].map(([k, v], i) => [k, i % 40 === 0 ? otherStatus(v) : v])) } : server.written;
        const merged = translated(world, ctx, written, at);
        const whole = translated(structuredClone(world), new TranslationContext(), structuredClone(written), at);
        expect(merged.text, `step ${step}`).toBe(whole.text);
        expect(merged.statuses, `step ${step}`).toBe(whole.statuses);
        const hash = tableHash(tableParts(JSON.parse(whole.text)), []);
        expect(tableHash(merged.t.compiledParts, []), `step ${step}`).toBe(hash);
        const d = JSON.parse(JSON.stringify(snapshotDelta(ref, client.version, client.version + 1, hash, server.t.compiledParts, merged.t.compiledParts)));
        const out = applyDelta(client.parts, client.version, d, []);
        expect(tableTextOfParts(out.parts), `step ${step}`).toBe(whole.text);
        // the attachment, made when read, is the whole translation's
        if (step % 10 === 0) expect(JSON.stringify(merged.t.attachment.listeners.map((l) => l.routes.map((a) => a.route.metadata.name)))).toBe(JSON.stringify(whole.t.attachment.listeners.map((l) => l.routes.map((a) => a.route.metadata.name))));
        client = { version: client.version + 1, parts: out.parts };
        server = merged;
      }
      expect(translationCounts(ctx).merged, 'changes merged').toBe(steps);
      // and every merged list was hashed from the chunks of the list it was made from
      expect(hashWork.editedCutWhole - cutWhole, 'lists hashed whole').toBe(0);
    });
  }

  it('plans the same status writes from the changed entries alone as from every entry', () => {
    const r = rng(21);
    const serial = { n: 0 };
    let world = worldOf(objectsOf(r, 150));
    const ctx = new TranslationContext();
    const plan = (before: Stored, t: ReturnType<typeof translate>, n: number) => planRecompute(before, {
      gateKey: 'g', owner: 'Gateway/infra/edge', scope: CONTROLLER, routeOwner: 'g', sourcePosition: n, now: 'x', durationMs: 0, deps: [],
      statuses: { gatewayStatus: t!.gatewayStatus, routeParents: t!.routeParents, policyAncestors: t!.policyAncestors, listenerSets: t!.listenerSetStatuses },
    });
    let before: Stored = { gate: null, parts: new Map(), deps: '[]', hash: null };
    let taken = 0;
    for (let step = 0; step < 40; step++) {
      const t = translate(world, ref, { controllerName: CONTROLLER, now: new Date(epoch + step * 1000).toISOString() }, { gatewayStatus: before.gatewayStatus as never, parts: before.parts as never }, ctx);
      // the same plan from a copy of what was written, which no translation is known to have made
      const copy: Stored = { ...before, parts: new Map([...before.parts].map(([k, v]) => [k, v])) };
      const expected = plan(copy, t, step + 1);
      const got = plan(before, t, step + 1);
      if (got.after.parts === before.parts) taken++;
      const sorted = (p: typeof got.plan) => JSON.stringify({ ...p, statusChanges: [...p.statusChanges].sort((a, b) => a.stream.localeCompare(b.stream)), removeParts: p.removeParts && 'streams' in p.removeParts ? { streams: [...p.removeParts.streams].sort() } : p.removeParts });
      expect(sorted(got.plan), `step ${step}`).toBe(sorted(expected.plan));
      expect(JSON.stringify([...got.after.parts].sort()), `step ${step}`).toBe(JSON.stringify([...expected.after.parts].sort()));
      before = got.after;
      world = change(world, r, serial, 4);
    }
    expect(taken, 'plans made from the changed entries alone').toBeGreaterThan(30);
  });

  it('merges a change when every written entry was read back from the store (equal, not the same objects)', () => {
    const r = rng(31);
    const serial = { n: 0 };
    const world = worldOf(objectsOf(r, 300));
    const ctx = new TranslationContext();
    const first = translated(world, ctx, undefined, new Date(epoch).toISOString());
    // as a run whose write lost a race reads them back: every entry a copy
    const read: Written = JSON.parse(JSON.stringify({ gatewayStatus: first.written.gatewayStatus }));
    read.parts = new Map([...first.written.parts].map(([k, v]) => [k, JSON.parse(JSON.stringify(v))]));
    const next = change(world, r, serial, 1);
    const at = new Date(epoch + 1000).toISOString();
    const merged = translated(next, ctx, read, at);
    expect(translationCounts(ctx)).toEqual({ merged: 1, whole: 1 });
    const whole = translated(structuredClone(next), new TranslationContext(), structuredClone(read), at);
    expect(merged.text).toBe(whole.text);
    expect(merged.statuses).toBe(whole.statuses);
  });

  it('translates the whole world again when more than routes changed', () => {
    const r = rng(3);
    const world = worldOf(objectsOf(r, 20));
    const ctx = new TranslationContext();
    const first = translated(world, ctx, undefined, new Date(epoch).toISOString());
    const services = world.services.map((s) => (s.metadata.name === 'gone' ? s : { ...s }));
    translated({ ...world, services }, ctx, first.written, new Date(epoch + 1000).toISOString());
    expect(translationCounts(ctx)).toEqual({ merged: 0, whole: 2 });
    translated({ ...world, services, routes: [...world.routes].slice(1) }, ctx, first.written, new Date(epoch + 2000).toISOString());
    expect(translationCounts(ctx)).toEqual({ merged: 1, whole: 2 });
  });
});
