// Strategic merge patch for the built-in kinds, in the shapes kubectl's client-side apply sends
// (a three-way patch: the changes, nulls and "$patch: delete" for what the manifest dropped since
// the last-applied-configuration annotation, "$setElementOrder" for the order the manifest gives),
// the directives one by one, and the 415 the Gateway API kinds answer, as CRD kinds do upstream.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { applyPatch, LAST_APPLIED } from '../../../src/core/kube-patch';
import { strategicMergePatch } from '../../../src/core/kube-patch/strategic-merge';
import { PatchError } from '../../../src/core/kube-patch/result';
import type { FieldSchema } from '../../../src/core/kube-patch/schema';

const SMP = 'application/strategic-merge-patch+json';
const svcOpts = { kind: 'Service', apiVersion: 'v1' };

const service = (ports: unknown[], more: Record<string, unknown> = {}) => ({
  apiVersion: 'v1', kind: 'Service',
  metadata: { name: 'web', namespace: 'shop', resourceVersion: '7', labels: { app: 'web', tier: 'front' },
    annotations: { [LAST_APPLIED]: '{"apiVersion":"v1","kind":"Service"}\n' } },
  spec: { clusterIP: '10.96.0.10', selector: { app: 'web' }, ports, ...more },
});

const patched = (current: object, patch: unknown, opts = svcOpts) => {
  const r = applyPatch(current, JSON.stringify(patch), SMP, opts);
  if (!r.ok) throw new Error(`${r.status} ${r.message}`);
  return r.object as ReturnType<typeof service>;
};

describe('kubectl apply (client-side) on a Service', () => {
  const live = service([{ name: 'http', port: 80, protocol: 'TCP', targetPort: 8080 }]);

  it('adds a port: the patch holds the new port and $setElementOrder; the live port and the server-set fields stay', () => {
    const out = patched(live, { spec: { '$setElementOrder/ports': [{ port: 80 }, { port: 443 }], ports: [{ name: 'https', port: 443, targetPort: 8443 }] } });
    expect(out.spec.ports).toEqual([{ name: 'http', port: 80, protocol: 'TCP', targetPort: 8080 }, { name: 'https', port: 443, targetPort: 8443 }]);
    expect(out.spec.clusterIP).toBe('10.96.0.10');
    expect(out.metadata.resourceVersion).toBe('7');
  });
  it('puts a new port first when the manifest does', () => {
    const out = patched(live, { spec: { '$setElementOrder/ports': [{ port: 443 }, { port: 80 }], ports: [{ port: 443 }] } });
    expect(out.spec.ports.map((p) => (p as { port: number }).port)).toEqual([443, 80]);
  });
  it('changes one field of a port, found by its merge key, and leaves the port\'s other fields', () => {
    const out = patched(live, { spec: { '$setElementOrder/ports': [{ port: 80 }], ports: [{ port: 80, targetPort: 9090 }] } });
    expect(out.spec.ports).toEqual([{ name: 'http', port: 80, protocol: 'TCP', targetPort: 9090 }]);
  });
  it('removes a port the manifest dropped: "$patch: delete" with its merge key', () => {
    const two = service([{ port: 80, targetPort: 8080 }, { port: 443, targetPort: 8443 }]);
    const out = patched(two, { spec: { '$setElementOrder/ports': [{ port: 80 }], ports: [{ $patch: 'delete', port: 443 }] } });
    expect(out.spec.ports).toEqual([{ port: 80, targetPort: 8080 }]);
  });
  it('removes a field of a port the manifest dropped: null', () => {
    const out = patched(live, { spec: { ports: [{ port: 80, name: null }] } });
    expect(out.spec.ports).toEqual([{ port: 80, protocol: 'TCP', targetPort: 8080 }]);
  });
  it('changes the selector key by key: new keys set, dropped keys null', () => {
    const out = patched(live, { spec: { selector: { app: null, 'app.kubernetes.io/name': 'web' } } });
    expect(out.spec.selector).toEqual({ 'app.kubernetes.io/name': 'web' });
  });
  it('removes a label and updates the last-applied annotation in the same patch', () => {
    const out = patched(live, { metadata: { annotations: { [LAST_APPLIED]: '{"new":true}\n' }, labels: { tier: null } } });
    expect(out.metadata.labels).toEqual({ app: 'web' });
    expect(out.metadata.annotations[LAST_APPLIED]).toBe('{"new":true}\n');
  });
  it('an unchanged manifest gives an empty patch, which changes nothing', () => {
    expect(patched(live, {})).toEqual(live);
    expect(patched(live, { spec: { '$setElementOrder/ports': [{ port: 80 }] } })).toEqual(live);
  });
  it('a list without a merge strategy is replaced whole (externalIPs)', () => {
    const out = patched(service([], { externalIPs: ['192.0.2.1', '192.0.2.2'] }), { spec: { externalIPs: ['192.0.2.3'] } });
    expect(out.spec).toMatchObject({ externalIPs: ['192.0.2.3'] });
  });
  it('a port without its merge key is 400, naming the key', () => {
    const r = applyPatch(live, { spec: { ports: [{ targetPort: 1 }] } }, SMP, svcOpts);
    expect(r).toMatchObject({ ok: false, status: 400, reason: 'BadRequest', message: expect.stringMatching(/does not contain declared merge key: port/) });
  });
});

describe('directives', () => {
  const live = service([{ port: 80 }, { port: 81 }, { port: 82 }]);
  it('$patch: replace in a list replaces the list with the rest of the patch', () => {
    expect(patched(live, { spec: { ports: [{ port: 90 }, { $patch: 'replace' }] } }).spec.ports).toEqual([{ port: 90 }]);
  });
  it('$patch: replace in a map replaces the map', () => {
    expect(patched(live, { spec: { selector: { $patch: 'replace', role: 'api' } } }).spec.selector).toEqual({ role: 'api' });
  });
  it('$patch: delete on a map empties it (and, on a field the original lacks, leaves it out)', () => {
    expect(patched(live, { spec: { selector: { $patch: 'delete' } } }).spec.selector).toEqual({});
    expect(patched(live, { spec: { sessionAffinityConfig: { $patch: 'delete' } } }).spec).not.toHaveProperty('sessionAffinityConfig');
  });
  it('$patch: merge is the default', () => {
    expect(patched(live, { spec: { selector: { $patch: 'merge', role: 'api' } } }).spec.selector).toEqual({ app: 'web', role: 'api' });
  });
  it('an unknown $patch is 400', () => {
    expect(applyPatch(live, { spec: { $patch: 'frobnicate' } }, SMP, svcOpts)).toMatchObject({ ok: false, status: 400 });
    expect(applyPatch(live, { spec: { ports: [{ port: 80, $patch: 'frobnicate' }] } }, SMP, svcOpts)).toMatchObject({ ok: false, status: 400 });
    expect(applyPatch(live, { spec: { $frobnicate: 1 } }, SMP, svcOpts)).toMatchObject({ ok: false, status: 400 });
  });
  it('$setElementOrder reorders; items the patch does not name keep their place among the others', () => {
    expect(patched(live, { spec: { '$setElementOrder/ports': [{ port: 82 }, { port: 81 }, { port: 80 }] } }).spec.ports).toEqual([{ port: 82 }, { port: 81 }, { port: 80 }]);
    // 81 is the server's alone: it goes before the named items that followed it
    expect(patched(live, { spec: { '$setElementOrder/ports': [{ port: 82 }, { port: 80 }] } }).spec.ports).toEqual([{ port: 81 }, { port: 82 }, { port: 80 }]);
    expect(applyPatch(live, { spec: { '$setElementOrder/ports': [{ name: 'x' }] } }, SMP, svcOpts)).toMatchObject({ ok: false, status: 400 });
  });
  it('finalizers merge as a set; $deleteFromPrimitiveList removes values', () => {
    const ns = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop', finalizers: ['a.example/x', 'b.example/y'] } };
    const out = patched(ns, { metadata: { '$deleteFromPrimitiveList/finalizers': ['a.example/x'], finalizers: ['c.example/z', 'b.example/y'] } }, { kind: 'Namespace', apiVersion: 'v1' });
    // the values the patch names come in its order
    expect((out.metadata as unknown as { finalizers: string[] }).finalizers).toEqual(['c.example/z', 'b.example/y']);
    const all = patched(ns, { metadata: { '$deleteFromPrimitiveList/finalizers': ['a.example/x', 'b.example/y'] } }, { kind: 'Namespace', apiVersion: 'v1' });
    expect((all.metadata as unknown as { finalizers: string[] }).finalizers).toEqual([]);
  });
  it('ownerReferences merge by uid', () => {
    const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', ownerReferences: [{ uid: '1', name: 'a', kind: 'X', apiVersion: 'v1' }] }, data: { a: '1' } };
    const out = patched(cm, { metadata: { ownerReferences: [{ uid: '2', name: 'b', kind: 'X', apiVersion: 'v1' }] } }, { kind: 'ConfigMap', apiVersion: 'v1' });
    // an item the original lacks comes first, as the patch's items do
    expect((out.metadata as unknown as { ownerReferences: { uid: string }[] }).ownerReferences.map((o) => o.uid)).toEqual(['2', '1']);
  });
  it('$retainKeys keeps only the keys it lists, and refuses a patch that sets others', () => {
    const schema: FieldSchema = { fields: { strategy: {} } };
    const original = { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1 } } };
    expect(strategicMergePatch(original, { strategy: { $retainKeys: ['type'], type: 'Recreate' } }, schema)).toEqual({ strategy: { type: 'Recreate' } });
    expect(() => strategicMergePatch(original, { strategy: { $retainKeys: ['type'], type: 'Recreate', other: 1 } }, schema)).toThrow(PatchError);
    expect(() => strategicMergePatch(original, { strategy: { $retainKeys: 'type' } }, schema)).toThrow(PatchError);
  });
  it('no directive reaches the result, not even in a field the original did not have', () => {
    const out = patched(service([{ port: 1 }]), { spec: { sessionAffinityConfig: { clientIP: { $patch: 'replace', timeoutSeconds: 10 }, other: { a: 1 } }, externalIPs: [{ $patch: 'replace' }] } });
    expect(JSON.stringify(out)).not.toMatch(/\$patch|\$setElementOrder|\$retainKeys/);
    expect(out.spec).toMatchObject({ sessionAffinityConfig: { other: { a: 1 } }, externalIPs: [] });
    expect(applyPatch(service([]), { spec: { ports: [{ port: 1, $patch: 'merge' }] } }, SMP, svcOpts)).toMatchObject({ ok: false, status: 400 });
  });
  it('$setElementOrder must list the patch\'s items in the patch\'s order', () => {
    const live = service([{ port: 80 }, { port: 81 }]);
    expect(applyPatch(live, { spec: { '$setElementOrder/ports': [{ port: 81 }, { port: 80 }], ports: [{ port: 80, name: 'a' }, { port: 81, name: 'b' }] } }, SMP, svcOpts))
      .toMatchObject({ ok: false, status: 400, message: expect.stringMatching(/does not match/) });
    expect(applyPatch(service([]), { spec: { '$setElementOrder/ports': [] } }, SMP, svcOpts)).toMatchObject({ ok: false, status: 400 });
  });
});

describe('other built-in kinds', () => {
  it('EndpointSlice endpoints and ports are atomic: replaced whole', () => {
    const slice = { apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { name: 'web-1', namespace: 'shop' }, addressType: 'IPv4',
      endpoints: [{ addresses: ['10.0.0.1'] }, { addresses: ['10.0.0.2'] }], ports: [{ name: 'http', port: 8080 }, { name: 'm', port: 9090 }] };
    const out = patched(slice, { endpoints: [{ addresses: ['10.0.0.3'], conditions: { ready: true } }], ports: [{ name: 'http', port: 8081 }] }, { kind: 'EndpointSlice', apiVersion: 'discovery.k8s.io/v1' });
    expect(out).toMatchObject({ endpoints: [{ addresses: ['10.0.0.3'], conditions: { ready: true } }], ports: [{ name: 'http', port: 8081 }] });
  });
  it('Secret and ConfigMap data merge key by key', () => {
    const secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, type: 'kubernetes.io/tls', data: { 'tls.crt': 'Y3J0', 'tls.key': 'a2V5' } };
    expect(patched(secret, { data: { 'tls.key': null, 'ca.crt': 'Y2E=' } }, { kind: 'Secret', apiVersion: 'v1' })).toMatchObject({ data: { 'tls.crt': 'Y3J0', 'ca.crt': 'Y2E=' } });
    const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { 'ca.crt': 'x' } };
    expect(patched(cm, { data: { 'ca.crt': 'y' } }, { kind: 'ConfigMap', apiVersion: 'v1' })).toMatchObject({ data: { 'ca.crt': 'y' } });
  });
});

describe('Gateway API kinds', () => {
  for (const [kind, apiVersion] of [['Gateway', 'gateway.networking.k8s.io/v1'], ['HTTPRoute', 'gateway.networking.k8s.io/v1'], ['GatewayClass', 'gateway.networking.k8s.io/v1'],
    ['ReferenceGrant', 'gateway.networking.k8s.io/v1beta1'], ['TLSRoute', 'gateway.networking.k8s.io/v1alpha2']]) {
    it(`${kind} answers 415 to a strategic merge patch, as a CRD kind does upstream`, () => {
      expect(applyPatch({ apiVersion, kind, metadata: { name: 'x' } }, {}, SMP, { kind, apiVersion })).toEqual({ ok: false, status: 415, reason: 'UnsupportedMediaType',
        message: 'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml' });
    });
  }
});

// kubectl's three-way patch of a Service's ports, built the way kubectl builds it, from any live
// list to any wanted list: applying it gives exactly the wanted list, in the wanted order.
const port = fc.record({ port: fc.integer({ min: 1, max: 12 }), targetPort: fc.integer({ min: 1, max: 3 }), name: fc.constantFrom('a', 'b') });
const ports = fc.uniqueArray(port, { selector: (p) => p.port, maxLength: 8 });

describe('property', () => {
  it('the three-way patch takes any live ports to any wanted ports', () => {
    fc.assert(fc.property(ports, ports, (live, wanted) => {
      const byPort = new Map(live.map((p) => [p.port, p]));
      const changed = wanted.filter((w) => JSON.stringify(byPort.get(w.port)) !== JSON.stringify(w));
      const dropped = live.filter((l) => !wanted.some((w) => w.port === l.port)).map((l) => ({ $patch: 'delete', port: l.port }));
      // kubectl writes the order only of a list the manifest holds items of
      const order = wanted.length > 0 ? { '$setElementOrder/ports': wanted.map((w) => ({ port: w.port })) } : {};
      const patch = { spec: { ...order, ports: [...changed, ...dropped] } };
      const out = patched(service(live), patch);
      expect(out.spec.ports.map((p) => JSON.stringify(p, ['name', 'port', 'targetPort']))).toEqual(wanted.map((p) => JSON.stringify(p, ['name', 'port', 'targetPort'])));
    }), { numRuns: 2000 });
  });
});
