// Server-side apply by several managers, as GitOps tools use it: the same manifest applied by
// argocd-controller, kustomize-controller and helm is shared (compared as stored, with the
// server's defaults), not a conflict; another value is a 409 naming every manager and field in
// kube-apiserver's words and order; force moves ownership; a field is removed only when its last
// applier stops applying it; associative lists, sets and atomic lists compare as the schema says;
// and kubectl's move from client-side to server-side apply (last-applied-configuration, then the
// managedFields migration kubectl 1.32 sends) takes the fields over and later prunes them.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { applyPatch, LAST_APPLIED, recordUpdate, type PatchResult } from '../../../src/core/kube-patch';
import { FieldSet, pathString } from '../../../src/core/kube-patch/field-set';
import { applyDefaults } from '../../../src/core/validate';

const APPLY = 'application/apply-patch+yaml';
const GW = 'gateway.networking.k8s.io/v1';
const T1 = '2026-12-01T10:00:00Z';
const T2 = '2026-12-01T11:00:00Z';
type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const ok = (r: PatchResult): Obj => {
  if (!r.ok) throw new Error(`${r.status} ${r.message}`);
  return r.object as Obj;
};
/** An apply as the server stores its result: validated, so defaulted. */
const apply = (current: object | undefined, body: Obj, fieldManager: string, more: { force?: boolean; now?: string } = {}): PatchResult => {
  const r = applyPatch(current, JSON.stringify(body), APPLY, { fieldManager, kind: body.kind, apiVersion: body.apiVersion, force: more.force, now: more.now ?? T1 });
  return r.ok ? { ok: true, object: applyDefaults(r.object) } : r;
};
/** A write other than apply, as the server records it: defaulted, then its manager's entry. */
const update = (before: Obj | undefined, after: Obj, fieldManager: string) =>
  recordUpdate(before, applyDefaults(after), { fieldManager, kind: after.kind, apiVersion: after.apiVersion, now: T1 }) as Obj;
const entries = (o: Obj) => (o.metadata.managedFields ?? []).map((m: Obj) => `${m.manager}/${m.operation}`).sort();
const owned = (o: Obj, manager: string, operation = 'Apply') => {
  const e = (o.metadata.managedFields ?? []).find((m: Obj) => m.manager === manager && m.operation === operation);
  return e ? FieldSet.fromFieldsV1(e.fieldsV1).paths().map(pathString).sort() : [];
};
const withoutManaged = (o: Obj) => ({ ...o, metadata: { ...o.metadata, managedFields: undefined } });

const route = (spec: Obj = {}, meta: Obj = {}): Obj => ({
  apiVersion: GW, kind: 'HTTPRoute', metadata: { name: 'store', namespace: 'shop', ...meta },
  spec: {
    parentRefs: [{ name: 'gw' }],
    hostnames: ['store.example'],
    rules: [{ matches: [{ path: { value: '/api' } }], backendRefs: [{ name: 'api', port: 8080 }] }],
    ...spec,
  },
});
const gateway = (listeners: Obj[], more: Obj = {}): Obj => ({ apiVersion: GW, kind: 'Gateway', metadata: { name: 'edge', namespace: 'infra' },
  spec: { gatewayClassName: 'switchyard', listeners, ...more } });
const listener = (name: string, port = 80, protocol = 'HTTP', more: Obj = {}) => ({ name, port, protocol, ...more });
const service = (ports: Obj[], more: Obj = {}): Obj => ({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'api', namespace: 'shop', ...more }, spec: { selector: { app: 'api' }, ports } });

const GITOPS = ['argocd-controller', 'kustomize-controller', 'helm'];

describe('the same manifest from several managers', () => {
  const first = ok(apply(undefined, route(), 'kubectl'));
  it('is stored with the server\'s defaults, which no one owns', () => {
    expect(first.spec.parentRefs).toEqual([{ group: 'gateway.networking.k8s.io', kind: 'Gateway', name: 'gw' }]);
    expect(first.spec.rules[0].backendRefs).toEqual([{ group: '', kind: 'Service', name: 'api', port: 8080, weight: 1 }]);
    expect(owned(first, 'kubectl')).toEqual(['.spec.hostnames', '.spec.parentRefs', '.spec.rules']);
  });
  it('argocd-controller, kustomize-controller and helm each apply it: no conflict, every one listed with Apply, the object unchanged', () => {
    let o = first;
    for (const m of GITOPS) {
      const r = apply(o, route(), m, { now: T2 });
      expect(r.ok, r.ok ? '' : r.message).toBe(true);
      const next = ok(r);
      expect(withoutManaged(next)).toEqual(withoutManaged(o));
      expect(owned(next, m)).toEqual(owned(first, 'kubectl'));
      o = next;
    }
    expect(entries(o)).toEqual(['argocd-controller/Apply', 'helm/Apply', 'kubectl/Apply', 'kustomize-controller/Apply']);
    // an entry's time is when its manager last changed the object, as kube-apiserver keeps it: these changed nothing
    expect(o.metadata.managedFields.find((e: Obj) => e.manager === 'kubectl').time).toBe(T1);
    for (const m of GITOPS) expect(o.metadata.managedFields.find((e: Obj) => e.manager === m)).not.toHaveProperty('time');
    // and each applies it again: nothing at all changes
    for (const m of ['kubectl', ...GITOPS]) expect(ok(apply(o, route(), m, { now: '2026-12-02T00:00:00Z' }))).toEqual(o);
  });
  it('defaults written out or left out are the same value, either way round', () => {
    const explicit = route({
      parentRefs: [{ group: 'gateway.networking.k8s.io', kind: 'Gateway', name: 'gw' }],
      rules: [{ matches: [{ path: { type: 'PathPrefix', value: '/api' } }], backendRefs: [{ group: '', kind: 'Service', name: 'api', port: 8080, weight: 1 }] }],
    });
    const shared = ok(apply(first, explicit, 'argocd-controller'));
    expect(entries(shared)).toEqual(['argocd-controller/Apply', 'kubectl/Apply']);
    const fromExplicit = ok(apply(undefined, explicit, 'helm'));
    expect(apply(fromExplicit, route(), 'kustomize-controller')).toMatchObject({ ok: true });
  });
  it('an omitted rules list the server defaults is the same as the default written out', () => {
    const bare = ok(apply(undefined, route({ rules: undefined }), 'helm'));
    expect(bare.spec.rules).toEqual([{ matches: [{ path: { type: 'PathPrefix', value: '/' } }] }]);
    expect(owned(bare, 'helm')).toEqual(['.spec.hostnames', '.spec.parentRefs']);
    const r = ok(apply(bare, route({ rules: [{ matches: [{ path: { value: '/' } }] }] }), 'argocd-controller'));
    expect(owned(r, 'argocd-controller')).toContain('.spec.rules');
  });
});

describe('a value that differs', () => {
  let o = ok(apply(undefined, route(), 'argocd-controller'));
  o = ok(apply(o, route(), 'kustomize-controller'));
  it('is one conflict naming the manager and the field, in kube-apiserver\'s words', () => {
    const solo = ok(apply(undefined, route(), 'argocd-controller'));
    expect(apply(solo, route({ hostnames: ['shop.example'] }), 'helm')).toEqual({ ok: false, status: 409, reason: 'Conflict',
      message: 'Apply failed with 1 conflict: conflict with "argocd-controller": .spec.hostnames',
      causes: [{ field: '.spec.hostnames', message: 'conflict with "argocd-controller"', reason: 'FieldManagerConflict' }] });
  });
  it('owned by two managers, is a conflict with each, grouped by manager', () => {
    const r = apply(o, route({ hostnames: ['shop.example'], rules: [{ backendRefs: [{ name: 'api', port: 8080, weight: 2 }] }] }), 'helm');
    expect(r).toMatchObject({ ok: false, status: 409, reason: 'Conflict' });
    if (r.ok) return;
    expect(r.message).toBe('Apply failed with 4 conflicts: conflicts with "argocd-controller":\n- .spec.hostnames\n- .spec.rules\n'
      + 'conflicts with "kustomize-controller":\n- .spec.hostnames\n- .spec.rules');
    expect(r.causes?.map((c) => `${c.message} ${c.field}`)).toEqual([
      'conflict with "argocd-controller" .spec.hostnames', 'conflict with "argocd-controller" .spec.rules',
      'conflict with "kustomize-controller" .spec.hostnames', 'conflict with "kustomize-controller" .spec.rules',
    ]);
  });
  it('a default given another value (a weight of 2) is a change of the atomic rules list', () => {
    const r = apply(o, route({ rules: [{ matches: [{ path: { value: '/api' } }], backendRefs: [{ name: 'api', port: 8080, weight: 2 }] }] }), 'helm');
    expect(r).toMatchObject({ status: 409, causes: [{ field: '.spec.rules' }, { field: '.spec.rules' }] });
  });
  it('is refused as a whole: nothing of the apply is written', () => {
    const r = apply(o, route({ hostnames: ['shop.example'] }, { labels: { team: 'web' } }), 'helm');
    expect(r.ok).toBe(false);
  });
  it('force moves the field to the applier; the others keep what they still share', () => {
    const forced = ok(apply(o, route({ hostnames: ['shop.example'] }), 'helm', { force: true, now: T2 }));
    expect(forced.metadata.managedFields.find((e: Obj) => e.manager === 'helm').time).toBe(T2);
    expect(forced.spec.hostnames).toEqual(['shop.example']);
    expect(owned(forced, 'helm')).toEqual(['.spec.hostnames', '.spec.parentRefs', '.spec.rules']);
    for (const m of ['argocd-controller', 'kustomize-controller']) expect(owned(forced, m)).toEqual(['.spec.parentRefs', '.spec.rules']);
    // the old owners applying their old value now conflict with the new one
    expect(apply(forced, route(), 'argocd-controller')).toMatchObject({ status: 409, causes: [{ field: '.spec.hostnames', message: 'conflict with "helm"' }] });
  });
  it('a manager that loses every field with force disappears from managedFields', () => {
    const solo = ok(apply(undefined, route({ parentRefs: undefined, rules: undefined }), 'kustomize-controller'));
    const taken = ok(apply(solo, route({ parentRefs: undefined, rules: undefined, hostnames: ['x.example'] }), 'argocd-controller', { force: true }));
    expect(entries(taken)).toEqual(['argocd-controller/Apply']);
  });
  it('lists paths as kube-apiserver iterates a set: a level\'s own fields before the ones deeper down', () => {
    const base = ok(apply(undefined, gateway([listener('http')], { allowedListeners: { namespaces: { from: 'Same' } } }), 'argocd-controller'));
    const r = apply(base, gateway([listener('http', 8080)], { gatewayClassName: 'other', allowedListeners: { namespaces: { from: 'All' } } }), 'helm');
    expect(r.ok ? '' : r.message).toBe('Apply failed with 3 conflicts: conflicts with "argocd-controller":\n'
      + '- .spec.gatewayClassName\n- .spec.allowedListeners.namespaces.from\n- .spec.listeners[name="http"].port');
  });
  it('an updater is named with its API version, after the appliers', () => {
    const base = ok(apply(undefined, route(), 'argocd-controller'));
    const labelled = update(base, { ...base, metadata: { ...base.metadata, labels: { team: 'a' } } }, 'kubectl-label');
    const r = apply(labelled, route({ hostnames: ['x.example'] }, { labels: { team: 'b' } }), 'helm');
    expect(r.ok ? '' : r.message).toBe(`Apply failed with 2 conflicts: conflicts with "argocd-controller":\n- .spec.hostnames\nconflicts with "kubectl-label" using ${GW}:\n- .metadata.labels.team`);
  });
});

describe('a manager that stops applying a field', () => {
  let o = ok(apply(undefined, route(), 'argocd-controller'));
  o = ok(apply(o, route({ hostnames: undefined }), 'helm'));
  it('removes it when it alone owned it', () => {
    const out = ok(apply(o, route({ hostnames: undefined }), 'argocd-controller'));
    expect(out.spec).not.toHaveProperty('hostnames');
    expect(owned(out, 'argocd-controller')).toEqual(['.spec.parentRefs', '.spec.rules']);
  });
  it('leaves it when another manager applied it too', () => {
    const out = ok(apply(o, route({ rules: undefined, hostnames: undefined }), 'argocd-controller'));
    expect(out.spec.rules).toEqual(o.spec.rules);
    expect(owned(out, 'argocd-controller')).toEqual(['.spec.parentRefs']);
    expect(owned(out, 'helm')).toEqual(['.spec.parentRefs', '.spec.rules']);
    // and when that one stops too, it goes (to the server's default)
    const gone = ok(apply(out, route({ rules: undefined, hostnames: undefined }), 'helm'));
    expect(gone.spec.rules).toEqual([{ matches: [{ path: { type: 'PathPrefix', value: '/' } }] }]);
  });
  it('a defaulted field set to another value and then left out goes back to its default', () => {
    const all = ok(apply(undefined, gateway([listener('http', 80, 'HTTP', { allowedRoutes: { namespaces: { from: 'All' } } })]), 'helm'));
    const back = ok(apply(all, gateway([listener('http')]), 'helm'));
    expect(back.spec.listeners[0].allowedRoutes).toEqual({ namespaces: { from: 'Same' } });
  });
});

describe('associative lists, sets and atomic lists', () => {
  it('Gateway listeners by name: the same listener is shared item and fields; another port of it conflicts; a new one is the applier\'s own', () => {
    const base = ok(apply(undefined, gateway([listener('http'), listener('https', 443, 'HTTPS')]), 'argocd-controller'));
    const shared = ok(apply(base, gateway([listener('http')]), 'kustomize-controller'));
    expect(owned(shared, 'kustomize-controller')).toEqual(['.spec.gatewayClassName', '.spec.listeners[name="http"]', '.spec.listeners[name="http"].name',
      '.spec.listeners[name="http"].port', '.spec.listeners[name="http"].protocol']);
    expect(apply(shared, gateway([listener('http', 8080)]), 'kustomize-controller')).toMatchObject({ status: 409,
      message: 'Apply failed with 1 conflict: conflict with "argocd-controller": .spec.listeners[name="http"].port' });
    const added = ok(apply(shared, gateway([listener('http'), listener('admin', 9000)]), 'kustomize-controller'));
    expect(added.spec.listeners.map((l: Obj) => l.name)).toEqual(['http', 'https', 'admin']);
    // argocd stops applying http: kustomize still owns it, so it stays; https it alone owned goes
    const pruned = ok(apply(added, gateway([]), 'argocd-controller'));
    expect(pruned.spec.listeners.map((l: Obj) => l.name)).toEqual(['http', 'admin']);
  });
  it('a listener\'s defaulted allowedRoutes, written out by one manager and left out by another, is no conflict', () => {
    const base = ok(apply(undefined, gateway([listener('http')]), 'helm'));
    const out = ok(apply(base, gateway([listener('http', 80, 'HTTP', { allowedRoutes: { namespaces: { from: 'Same' } } })]), 'argocd-controller'));
    expect(owned(out, 'argocd-controller')).toContain('.spec.listeners[name="http"].allowedRoutes.namespaces.from');
    expect(apply(out, gateway([listener('http', 80, 'HTTP', { allowedRoutes: { namespaces: { from: 'All' } } })]), 'helm'))
      .toMatchObject({ status: 409, causes: [{ field: '.spec.listeners[name="http"].allowedRoutes.namespaces.from', message: 'conflict with "argocd-controller"' }] });
  });
  it('Service ports by port and protocol, TCP when left out: the same port is shared, another targetPort conflicts', () => {
    const base = ok(apply(undefined, service([{ name: 'http', port: 80, targetPort: 8080 }]), 'helm'));
    const same = ok(apply(base, service([{ name: 'http', port: 80, protocol: 'TCP', targetPort: 8080 }]), 'argocd-controller'));
    expect(owned(same, 'argocd-controller')).toContain('.spec.ports[port=80,protocol="TCP"].targetPort');
    expect(apply(same, service([{ name: 'http', port: 80, targetPort: 9090 }]), 'kustomize-controller')).toMatchObject({ status: 409,
      message: 'Apply failed with 2 conflicts: conflicts with "argocd-controller":\n- .spec.ports[port=80,protocol="TCP"].targetPort\n'
        + 'conflicts with "helm":\n- .spec.ports[port=80,protocol="TCP"].targetPort' });
    const udp = ok(apply(same, service([{ name: 'dns', port: 80, protocol: 'UDP' }]), 'kustomize-controller'));
    expect(udp.spec.ports.map((p: Obj) => `${p.port}/${p.protocol}`)).toEqual(['80/TCP', '80/UDP']);
    // the selector is an atomic map: another selector conflicts as one field
    expect(apply(same, { ...service([]), spec: { selector: { app: 'web' } } }, 'kustomize-controller'))
      .toMatchObject({ status: 409, causes: [{ field: '.spec.selector' }, { field: '.spec.selector' }] });
  });
  it('a targetPort the server defaulted to the port is the same as one written out', () => {
    const base = ok(apply(undefined, service([{ port: 80 }]), 'helm'));
    expect(base.spec.ports[0].targetPort).toBe(80);
    expect(apply(base, service([{ port: 80, targetPort: 80 }]), 'argocd-controller')).toMatchObject({ ok: true });
  });
  it('finalizers are a set: each value owned by whoever applied it, removed when no one does', () => {
    const ns = (finalizers: string[]) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop', finalizers } });
    const base = ok(apply(undefined, ns(['a.example/x']), 'helm'));
    const both = ok(apply(base, ns(['a.example/x', 'b.example/y']), 'argocd-controller'));
    expect(owned(both, 'helm')).toEqual(['.metadata.finalizers[="a.example/x"]']);
    const helmGone = ok(apply(both, ns([]), 'helm'));
    expect(helmGone.metadata.finalizers).toEqual(['a.example/x', 'b.example/y']);
    const argoGone = ok(apply(both, ns(['b.example/y']), 'argocd-controller'));
    expect(argoGone.metadata.finalizers).toEqual(['a.example/x', 'b.example/y']);
    expect(ok(apply(argoGone, ns([]), 'helm')).metadata.finalizers).toEqual(['b.example/y']);
  });
  it('hostnames are an atomic list: one more name is another value of the whole list', () => {
    const base = ok(apply(undefined, route(), 'helm'));
    expect(apply(base, route({ hostnames: ['store.example', 'www.example'] }), 'argocd-controller'))
      .toMatchObject({ status: 409, causes: [{ field: '.spec.hostnames', message: 'conflict with "helm"' }] });
  });
  it('a Secret\'s stringData is applied as itself, as kube-apiserver compares it before folding it into data: no conflict over data', () => {
    const secret = (more: Obj) => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'db', namespace: 'shop' }, type: 'Opaque', ...more });
    const base = ok(apply(undefined, secret({ data: { password: btoa('a') } }), 'helm'));
    const out = ok(apply(base, secret({ stringData: { password: 'b' } }), 'argocd-controller'));
    expect(out.data.password).toBe(btoa('b'));
    expect(owned(out, 'argocd-controller')).toEqual(['.stringData.password', '.type']);
    expect(owned(out, 'helm')).toContain('.data.password');
  });
  it('labels are a map: each key on its own', () => {
    const base = ok(apply(undefined, route({}, { labels: { app: 'store', team: 'web' } }), 'helm'));
    const out = ok(apply(base, route({}, { labels: { app: 'store', tier: 'front' } }), 'argocd-controller'));
    expect(out.metadata.labels).toEqual({ app: 'store', team: 'web', tier: 'front' });
    expect(apply(out, route({}, { labels: { team: 'api' } }), 'argocd-controller'))
      .toMatchObject({ status: 409, message: 'Apply failed with 1 conflict: conflict with "helm": .metadata.labels.team' });
  });
});

// What kubectl 1.32 does around an apply --server-side of an object it once applied client-side:
// the apply itself (manager kubectl), then, since the annotation has no applier yet, an apply of
// the annotation alone by kubectl-last-applied, then a JSON patch of managedFields that gives the
// fields of kubectl-client-side-apply to kubectl's Apply entry (client-go's csaupgrade).
function kubectlServerSide(live: Obj, manifest: Obj, more: { force?: boolean } = {}): PatchResult {
  const r = apply(live, manifest, 'kubectl', more);
  if (!r.ok) return r;
  let o = r.object as Obj;
  const annotation = o.metadata.annotations?.[LAST_APPLIED];
  const annotationOwned = (o.metadata.managedFields ?? []).some((e: Obj) => e.operation === 'Apply'
    && FieldSet.fromFieldsV1(e.fieldsV1).has(['f:metadata', 'f:annotations', `f:${LAST_APPLIED}`]));
  if (annotation !== undefined && !annotationOwned) {
    o = ok(apply(o, { apiVersion: manifest.apiVersion, kind: manifest.kind, metadata: { name: manifest.metadata.name, namespace: manifest.metadata.namespace, annotations: { [LAST_APPLIED]: annotation } } }, 'kubectl-last-applied'));
  }
  const csa = (o.metadata.managedFields as Obj[]).find((e) => e.manager === 'kubectl-client-side-apply' && e.operation === 'Update');
  if (!csa) return { ok: true, object: o };
  const ssa = (o.metadata.managedFields as Obj[]).find((e) => e.manager === 'kubectl' && e.operation === 'Apply')!;
  const union = FieldSet.fromFieldsV1(ssa.fieldsV1).union(FieldSet.fromFieldsV1(csa.fieldsV1));
  const managedFields = (o.metadata.managedFields as Obj[]).filter((e) => e !== csa).map((e) => (e === ssa ? { ...e, fieldsV1: union.toFieldsV1() } : e));
  return { ok: true, object: update(o, { ...o, metadata: { ...o.metadata, managedFields } }, 'kubectl') };
}

/** kubectl apply (client-side) creating the object: the annotation, then a create by kubectl-client-side-apply. */
function clientSideCreate(manifest: Obj): Obj {
  const annotated = { ...manifest, metadata: { ...manifest.metadata, annotations: { ...manifest.metadata.annotations, [LAST_APPLIED]: `${JSON.stringify(manifest)}\n` } } };
  return update(undefined, annotated, 'kubectl-client-side-apply');
}

describe('from client-side to server-side apply with kubectl', () => {
  const created = clientSideCreate(route());
  it('the client-side create is an Update of kubectl-client-side-apply owning the defaults too', () => {
    expect(entries(created)).toEqual(['kubectl-client-side-apply/Update']);
    expect(owned(created, 'kubectl-client-side-apply', 'Update')).toContain('.spec.parentRefs');
  });
  it('the same manifest applied server-side: no conflict, nothing but ownership changes, then kubectl owns it all', () => {
    const r = apply(created, route(), 'kubectl');
    expect(r.ok, r.ok ? '' : r.message).toBe(true);
    expect(ok(r).spec).toEqual(created.spec);
    const moved = ok(kubectlServerSide(created, route()));
    expect(entries(moved)).toEqual(['kubectl-last-applied/Apply', 'kubectl/Apply']);
    expect(owned(moved, 'kubectl')).toEqual(expect.arrayContaining(['.spec.hostnames', '.spec.parentRefs', '.spec.rules']));
    expect(owned(moved, 'kubectl-last-applied')).toEqual([`.metadata.annotations.${LAST_APPLIED}`]);
    // applied again: kubectl's entry comes down to what it applies; values unchanged
    const settled = ok(kubectlServerSide(moved, route()));
    expect(owned(settled, 'kubectl')).toEqual(['.spec.hostnames', '.spec.parentRefs', '.spec.rules']);
    expect(settled.spec).toEqual(created.spec);
    expect(ok(kubectlServerSide(settled, route()))).toEqual(settled);
  });
  it('a field taken out of the manifest is removed, and the annotation follows the manifest', () => {
    const moved = ok(kubectlServerSide(created, route()));
    const reduced = ok(kubectlServerSide(moved, route({ hostnames: undefined })));
    expect(reduced.spec).not.toHaveProperty('hostnames');
    expect(JSON.parse(reduced.metadata.annotations[LAST_APPLIED]).spec).not.toHaveProperty('hostnames');
    expect(reduced.metadata.annotations[LAST_APPLIED].endsWith('}\n')).toBe(true);
  });
  it('taken out in the very first server-side apply, it is removed by the next one (once kubectl owns the client-side fields)', () => {
    const first = ok(kubectlServerSide(created, route({ hostnames: undefined })));
    expect(first.spec.hostnames).toEqual(['store.example']);
    expect(ok(kubectlServerSide(first, route({ hostnames: undefined }))).spec).not.toHaveProperty('hostnames');
  });
  it('a changed value applied server-side is no conflict when the live value is still the last-applied one', () => {
    const r = ok(apply(created, route({ hostnames: ['shop.example'], rules: [{ backendRefs: [{ name: 'web', port: 80 }] }] }), 'kubectl'));
    expect(r.spec.hostnames).toEqual(['shop.example']);
    expect(owned(r, 'kubectl-client-side-apply', 'Update')).not.toContain('.spec.hostnames');
    expect(JSON.parse(r.metadata.annotations[LAST_APPLIED]).spec.hostnames).toEqual(['shop.example']);
  });
  it('another manager than kubectl gets the conflict with the client-side manager', () => {
    expect(apply(created, route({ hostnames: ['shop.example'] }), 'argocd-controller')).toMatchObject({ status: 409,
      message: `Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using ${GW}: .spec.hostnames` });
  });
  it('a field someone else changed after the client-side apply is a conflict, as kubectl\'s documentation warns', () => {
    const patched = update(created, { ...created, spec: { ...created.spec, hostnames: ['patched.example'] } }, 'kubectl-patch');
    expect(apply(patched, route(), 'kubectl')).toMatchObject({ status: 409,
      message: `Apply failed with 1 conflict: conflict with "kubectl-patch" using ${GW}: .spec.hostnames` });
    expect(ok(apply(patched, route(), 'kubectl', { force: true })).spec.hostnames).toEqual(['store.example']);
  });
  it('the annotation is the applied configuration without itself, as kube-apiserver writes it: an annotations map left empty stays', () => {
    const withEmpty = ok(apply(created, route({}, { annotations: {} }), 'kubectl'));
    expect(JSON.parse(withEmpty.metadata.annotations[LAST_APPLIED]).metadata).toEqual({ annotations: {}, name: 'store', namespace: 'shop' });
    const without = ok(apply(created, route(), 'kubectl'));
    expect(JSON.parse(without.metadata.annotations[LAST_APPLIED]).metadata).toEqual({ name: 'store', namespace: 'shop' });
    const escaped = ok(apply(created, route({}, { labels: { note: 'a<b&c>d' } }), 'kubectl'));
    expect(escaped.metadata.annotations[LAST_APPLIED]).toContain('"note":"a\\u003cb\\u0026c\\u003ed"');
  });
  it('an annotation of another apiVersion grants nothing', () => {
    const other = { ...created, metadata: { ...created.metadata, annotations: { [LAST_APPLIED]: JSON.stringify({ ...route(), apiVersion: 'gateway.networking.k8s.io/v1beta1' }) } } };
    expect(apply(other, route({ hostnames: ['shop.example'] }), 'kubectl')).toMatchObject({ status: 409 });
  });
});

describe('properties', () => {
  // each default of a backendRef and a parentRef, written out or left out, by two managers
  const choice = fc.record({ group: fc.boolean(), kind: fc.boolean(), weight: fc.boolean(), type: fc.boolean(), pgroup: fc.boolean(), pkind: fc.boolean() });
  const manifest = (c: { group: boolean; kind: boolean; weight: boolean; type: boolean; pgroup: boolean; pkind: boolean }, weight = 1) => route({
    parentRefs: [{ name: 'gw', ...(c.pgroup ? { group: 'gateway.networking.k8s.io' } : {}), ...(c.pkind ? { kind: 'Gateway' } : {}) }],
    rules: [{ matches: [{ path: { value: '/api', ...(c.type ? { type: 'PathPrefix' } : {}) } }],
      backendRefs: [{ name: 'api', port: 8080, ...(c.group ? { group: '' } : {}), ...(c.kind ? { kind: 'Service' } : {}), ...(c.weight || weight !== 1 ? { weight } : {}) }] }],
  });
  it('defaults written out or left out never conflict; another weight always does, and force takes it', () => {
    fc.assert(fc.property(choice, choice, fc.constantFrom(...GITOPS), fc.constantFrom(...GITOPS), (a, b, m1, m2) => {
      fc.pre(m1 !== m2);
      const first = ok(apply(undefined, manifest(a), m1));
      const second = ok(apply(first, manifest(b), m2));
      expect(withoutManaged(second)).toEqual(withoutManaged(first));
      expect(owned(second, m1)).toEqual(owned(second, m2));
      const clash = apply(second, manifest(b, 3), m2);
      expect(clash).toMatchObject({ ok: false, status: 409, message: `Apply failed with 1 conflict: conflict with ${JSON.stringify(m1)}: .spec.rules` });
      const forced = ok(apply(second, manifest(b, 3), m2, { force: true }));
      expect(forced.spec.rules[0].backendRefs[0].weight).toBe(3);
      expect(owned(forced, m1)).not.toContain('.spec.rules');
    }), { numRuns: 300 });
  });
});
