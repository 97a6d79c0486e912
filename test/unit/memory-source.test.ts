// The in-memory object source answers as the worker's object cache does: routes by the Gateways
// their parentRefs name, slices by their Service label, objects by kind and namespace, each in
// stream order, frozen, and the same value until replaced.
import { describe, expect, it } from 'vitest';
import { MemorySource } from '../../src/adapters/store/memory-source';
import type { K8sObject } from '../../src/core/model/objects';
import { cmp } from '../../src/core/refs/lookup';

const GW = 'gateway.networking.k8s.io/v1';
const route = (ns: string, name: string, parents: { name: string; namespace?: string }[]) =>
  ({ apiVersion: GW, kind: 'HTTPRoute', metadata: { namespace: ns, name }, spec: { parentRefs: parents } }) as unknown as K8sObject;
const slice = (ns: string, name: string, service: string) =>
  ({ apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { namespace: ns, name, labels: { 'kubernetes.io/service-name': service } } }) as unknown as K8sObject;
const names = (os: Iterable<K8sObject>) => [...os].map((o) => `${o.metadata.namespace ?? ''}/${o.metadata.name}`);

describe('MemorySource', () => {
  it('indexes routes by the Gateways they name, in stream order', () => {
    const src = new MemorySource([route('b', 'r2', [{ name: 'gw', namespace: 'infra' }]), route('infra', 'r1', [{ name: 'gw' }, { name: 'other' }]), route('a', 'r3', [{ name: 'gw' }])]);
    expect(names(src.routesNaming('infra', 'gw'))).toEqual(['b/r2', 'infra/r1']);
    expect(names(src.routesNaming('infra', 'other'))).toEqual(['infra/r1']);
    expect(names(src.routesNaming('a', 'gw'))).toEqual(['a/r3']);
  });

  it('indexes ListenerSets by the Gateway they name, and routes by the ListenerSets they name', () => {
    const ls = (ns: string, name: string, gw: { name: string; namespace?: string }) =>
      ({ apiVersion: GW, kind: 'ListenerSet', metadata: { namespace: ns, name }, spec: { parentRef: gw, listeners: [] } }) as unknown as K8sObject;
    const viaSet = (ns: string, name: string, set: string) =>
      ({ apiVersion: GW, kind: 'HTTPRoute', metadata: { namespace: ns, name }, spec: { parentRefs: [{ group: 'gateway.networking.k8s.io', kind: 'ListenerSet', name: set, namespace: 'team' }] } }) as unknown as K8sObject;
    const src = new MemorySource([ls('team', 'a', { name: 'gw', namespace: 'infra' }), ls('infra', 'b', { name: 'gw' }), viaSet('apps', 'r', 'a')]);
    expect(names(src.listenerSetsNaming('infra', 'gw'))).toEqual(['infra/b', 'team/a']);
    expect(names(src.routesNaming('team', 'a', 'ListenerSet'))).toEqual(['apps/r']);
    // naming a ListenerSet is not naming a Gateway of that name
    expect(src.routesNaming('team', 'a')).toEqual([]);
    src.put(ls('team', 'a', { name: 'other', namespace: 'infra' }));
    expect(names(src.listenerSetsNaming('infra', 'gw'))).toEqual(['infra/b']);
    expect(names(src.listenerSetsNaming('infra', 'other'))).toEqual(['team/a']);
  });

  it('answers the replaced routes of a Gateway picked before, in a new array each time', () => {
    const src = new MemorySource(Array.from({ length: 50 }, (_, i) => route(`t${i % 3}`, `r${i}`, [{ name: 'gw', namespace: 'infra' }])));
    const first = src.routesNaming('infra', 'gw');
    const withLabel = (r: K8sObject, v: string) => ({ ...r, metadata: { ...r.metadata, labels: { v } } }) as K8sObject;
    src.put(withLabel(first.at(7)!, 'a'));
    src.put(withLabel(first.at(30)!, 'b'));
    src.put(withLabel(first.at(7)!, 'c'));
    const second = src.routesNaming('infra', 'gw');
    expect(second).not.toBe(first);
    expect(names(second)).toEqual(names(first));
    expect([...second].map((r, i) => (r === first.at(i)! ? '' : `${i}:${r.metadata.labels?.v}`)).filter(Boolean)).toEqual(['7:c', '30:b']);
    // what a caller holds is not changed under it
    expect(first.at(7)!.metadata.labels).toBeUndefined();
    expect(src.routesNaming('infra', 'gw')).toEqual(second);
    src.put(withLabel(first.at(7)!, 'd'));
    expect(src.routesNaming('infra', 'gw').at(7)!.metadata.labels).toEqual({ v: 'd' });
    expect(second.at(7)!.metadata.labels).toEqual({ v: 'c' });
    // a route added and one gone: the order is made again
    src.put(route('a', 'new', [{ name: 'gw', namespace: 'infra' }]));
    src.delete(`HTTPRoute/${first.at(0)!.metadata.namespace}/${first.at(0)!.metadata.name}`);
    const third = src.routesNaming('infra', 'gw');
    expect(names(third)).toEqual(['a/new', ...names(second).filter((n) => n !== names(first)[0])].sort());
    expect([...third].find((r) => r.metadata.name === first.at(30)!.metadata.name)!.metadata.labels).toEqual({ v: 'b' });
  });

  it('moves a route to the Gateways its new parentRefs name and forgets a deleted one', () => {
    const src = new MemorySource([route('infra', 'r', [{ name: 'gw' }])]);
    src.put(route('infra', 'r', [{ name: 'gw2' }]));
    expect(src.routesNaming('infra', 'gw')).toEqual([]);
    expect(names(src.routesNaming('infra', 'gw2'))).toEqual(['infra/r']);
    src.delete('HTTPRoute/infra/r');
    expect(src.routesNaming('infra', 'gw2')).toEqual([]);
    expect(src.get('HTTPRoute/infra/r')).toBeUndefined();
  });

  it('indexes slices by their Service and objects by kind and namespace', () => {
    const ns = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'apps' } } as unknown as K8sObject;
    const src = new MemorySource([slice('apps', 's2', 'web'), slice('apps', 's1', 'web'), slice('apps', 's3', 'api'), ns]);
    expect(names(src.slicesOf('apps', 'web'))).toEqual(['apps/s1', 'apps/s2']);
    expect(names(src.ofKind('EndpointSlice', 'apps'))).toEqual(['apps/s1', 'apps/s2', 'apps/s3']);
    expect(names(src.ofKind('Namespace'))).toEqual(['/apps']);
    expect(src.ofKind('EndpointSlice', 'other')).toEqual([]);
  });

  it('holds frozen copies that stay the same value until replaced, and answers Secret data from the object', async () => {
    const input = route('infra', 'r', [{ name: 'gw' }]);
    const secret = { apiVersion: 'v1', kind: 'Secret', metadata: { namespace: 'infra', name: 'cert' }, type: 'kubernetes.io/tls', data: { 'tls.crt': 'Y3J0' } } as unknown as K8sObject;
    const src = new MemorySource([input, secret]);
    const held = src.get('HTTPRoute/infra/r')!;
    expect(Object.isFrozen(held) && Object.isFrozen(held.spec)).toBe(true);
    expect(Object.isFrozen(input.spec)).toBe(false);
    expect(src.routesNaming('infra', 'gw').at(0)).toBe(held);
    const before = src.position;
    src.put(route('other', 'x', []));
    expect(src.position).toBeGreaterThan(before);
    expect(src.get('HTTPRoute/infra/r')).toBe(held);
    expect(await src.secretData([src.get('Secret/infra/cert')!])).toEqual(new Map([['Secret/infra/cert', { 'tls.crt': 'Y3J0' }]]));
  });

  it('answers every entry in stream order after random writes, new streams put in place between picks', () => {
    let seed = 7;
    const next = (n: number) => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) % n);
    const src = new MemorySource();
    const held = new Map<string, K8sObject>();
    const stream = (o: K8sObject) => `HTTPRoute/${o.metadata.namespace}/${o.metadata.name}`;
    const expected = (gw: string) => [...held.values()].filter((o) => (o.spec as { parentRefs: { name: string }[] }).parentRefs.some((p) => p.name === gw))
      .sort((a, b) => cmp(stream(a), stream(b)));
    for (let step = 0; step < 600; step++) {
      const op = next(10);
      const name = `r${next(300)}`;
      const ns = `t${next(4)}`;
      if (op < 6) {
        const o = route(ns, name, [{ name: `gw${next(3)}`, namespace: 'infra' }, ...(next(4) === 0 ? [{ name: 'gw9', namespace: 'infra' }] : [])]);
        held.set(stream(o), src.put(o));
      } else if (op < 7 && held.size) {
        const victim = [...held.keys()][next(held.size)];
        src.delete(victim);
        held.delete(victim);
      }
      // picked now and then: runs of writes come between the picks, as between two recomputes
      if (next(4) === 0) {
        for (const gw of ['gw0', 'gw1', 'gw2', 'gw9']) {
          const want = expected(gw);
          const got = src.routesNaming('infra', gw);
          expect(got.length, `step ${step} ${gw}`).toBe(want.length);
          want.forEach((o, i) => expect(got.at(i), `step ${step} ${gw} ${i}`).toBe(held.get(stream(o))));
        }
        for (const t of ['t0', 't3']) {
          const want = [...held.values()].filter((o) => o.metadata.namespace === t).sort((a, b) => cmp(stream(a), stream(b)));
          const got = src.ofKind('HTTPRoute', t);
          expect(got.length, `step ${step} ${t}`).toBe(want.length);
          want.forEach((o, i) => expect(got[i], `step ${step} ${t} ${i}`).toBe(o));
        }
      }
    }
  });
});
