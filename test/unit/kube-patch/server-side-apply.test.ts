// Server-side apply: managedFields in the FieldsV1 form kube-apiserver writes, ownership shared
// and moved, conflicts (409, each field and manager named), force, the removal of fields an
// applier stopped applying, creation, and kubectl's own paths (before-first-apply, the move from
// client-side apply); then properties over random label sets and listeners.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { applyPatch, LAST_APPLIED, recordUpdate, type PatchResult } from '../../../src/core/kube-patch';
import { FieldSet } from '../../../src/core/kube-patch/field-set';

const APPLY = 'application/apply-patch+yaml';
const T1 = '2026-12-01T10:00:00Z';
const T2 = '2026-12-01T11:00:00Z';
const GW = 'gateway.networking.k8s.io/v1';
type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const ok = (r: PatchResult): Obj => {
  if (!r.ok) throw new Error(`${r.status} ${r.message}`);
  return r.object as Obj;
};
const apply = (current: object | undefined, body: unknown, fieldManager: string | undefined, more: { force?: boolean; now?: string; kind?: string; apiVersion?: string } = {}) =>
  applyPatch(current, typeof body === 'string' ? body : JSON.stringify(body), APPLY,
    { fieldManager, kind: more.kind ?? (body as Obj).kind ?? 'ConfigMap', apiVersion: more.apiVersion ?? (body as Obj).apiVersion ?? 'v1', force: more.force, now: more.now ?? T1 });
const managers = (o: Obj) => (o.metadata.managedFields ?? []).map((m: Obj) => `${m.manager}/${m.operation}`);
const fieldsOf = (o: Obj, manager: string) => o.metadata.managedFields.find((m: Obj) => m.manager === manager)?.fieldsV1;

const cm = (labels: Record<string, string>, data: Record<string, string> = { key: 'some value' }) =>
  ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'test-cm', namespace: 'default', labels }, data });

const gateway = (listeners: Obj[], more: Obj = {}) => ({ apiVersion: GW, kind: 'Gateway', metadata: { name: 'g', namespace: 'n' },
  spec: { gatewayClassName: 'switchyard', listeners, ...more } });
const listener = (name: string, port = 80, protocol = 'HTTP') => ({ name, port, protocol });

describe('creating with apply', () => {
  it('writes the managedFields entry of the Kubernetes documentation\'s example', () => {
    const yaml = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: test-cm\n  namespace: default\n  labels:\n    test-label: test\ndata:\n  key: some value\n';
    const out = ok(apply(undefined, yaml, 'kubectl', { kind: 'ConfigMap', apiVersion: 'v1' }));
    expect(out).toEqual({ ...cm({ 'test-label': 'test' }), metadata: { ...cm({ 'test-label': 'test' }).metadata, managedFields: [{
      manager: 'kubectl', operation: 'Apply', apiVersion: 'v1', time: T1, fieldsType: 'FieldsV1',
      fieldsV1: { 'f:metadata': { 'f:labels': { 'f:test-label': {} } }, 'f:data': { 'f:key': {} } },
    }] } });
  });
  it('reads JSON as well as YAML, and leaves out status and the server\'s metadata', () => {
    const out = ok(apply(undefined, { ...gateway([listener('http')]), status: { addresses: [{ value: '1.2.3.4' }] }, metadata: { name: 'g', namespace: 'n', uid: 'u', generation: 9 } }, 'ci'));
    expect(out).not.toHaveProperty('status');
    expect(out.metadata).not.toHaveProperty('uid');
    expect(fieldsOf(out, 'ci')).toEqual({ 'f:spec': { 'f:gatewayClassName': {}, 'f:listeners': { 'k:{"name":"http"}': { '.': {}, 'f:name': {}, 'f:port': {}, 'f:protocol': {} } } } });
  });
  it('keys Service ports by port and protocol, the protocol TCP when left out; the selector is atomic', () => {
    const out = ok(apply(undefined, { apiVersion: 'v1', kind: 'Service', metadata: { name: 's' }, spec: { selector: { app: 'web' }, ports: [{ port: 80, targetPort: 8080 }, { port: 53, protocol: 'UDP' }] } }, 'kubectl'));
    expect(fieldsOf(out, 'kubectl')).toEqual({ 'f:spec': { 'f:ports': {
      'k:{"port":53,"protocol":"UDP"}': { '.': {}, 'f:port': {}, 'f:protocol': {} },
      'k:{"port":80,"protocol":"TCP"}': { '.': {}, 'f:port': {}, 'f:targetPort': {} },
    }, 'f:selector': {} } });
  });
  it('owns set items as values: finalizers', () => {
    const out = ok(apply(undefined, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop', finalizers: ['a/x', 'b/y'] } }, 'ops'));
    expect(fieldsOf(out, 'ops')).toEqual({ 'f:metadata': { 'f:finalizers': { 'v:"a/x"': {}, 'v:"b/y"': {} } } });
  });
});

describe('applying again', () => {
  const first = ok(apply(undefined, cm({ a: '1', b: '2' }), 'kubectl'));
  it('the same configuration changes nothing, not even the time', () => {
    expect(ok(apply(first, cm({ a: '1', b: '2' }), 'kubectl', { now: T2 }))).toEqual(first);
  });
  it('a field no longer applied, and owned by no one else, is removed', () => {
    const out = ok(apply(first, cm({ a: '1' }), 'kubectl', { now: T2 }));
    expect(out.metadata.labels).toEqual({ a: '1' });
    expect(fieldsOf(out, 'kubectl')).toEqual({ 'f:metadata': { 'f:labels': { 'f:a': {} } }, 'f:data': { 'f:key': {} } });
    expect(out.metadata.managedFields[0].time).toBe(T2);
  });
  it('a field another manager also applied stays, owned by that manager alone', () => {
    const shared = ok(apply(first, cm({ b: '2' }, {}), 'helm'));
    // entries are ordered as kube-apiserver orders them: appliers first, oldest first, then by name
    expect(managers(shared)).toEqual(['helm/Apply', 'kubectl/Apply']);
    const out = ok(apply(shared, cm({ a: '1' }), 'kubectl', { now: T2 }));
    expect(out.metadata.labels).toEqual({ a: '1', b: '2' });
    expect(fieldsOf(out, 'helm')).toEqual({ 'f:metadata': { 'f:labels': { 'f:b': {} } } });
  });
  it('a whole map no one owns anything of any more goes', () => {
    const out = ok(apply(first, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'test-cm', namespace: 'default' }, data: { key: 'some value' } }, 'kubectl'));
    expect(out.metadata).not.toHaveProperty('labels');
    expect(out.metadata.name).toBe('test-cm');
  });
  it('a listener no longer applied is removed; the others keep their fields and order', () => {
    const two = ok(apply(undefined, gateway([listener('http'), listener('https', 443, 'HTTPS')]), 'ci'));
    const out = ok(apply(two, gateway([listener('http')]), 'ci'));
    expect(out.spec.listeners).toEqual([{ ...listener('http'), allowedRoutes: { namespaces: { from: 'Same' } } }]);
  });
});

describe('the order of a merged list', () => {
  it('is kube-apiserver\'s: shared items in the applied order, the live list\'s own where they were, new ones where applied', () => {
    const live = ok(apply(undefined, gateway(['a', 'b', 'c'].map((n) => listener(n))), 'one'));
    const out = ok(apply(live, gateway(['c', 'x', 'a'].map((n) => listener(n))), 'two'));
    expect(out.spec.listeners.map((l: Obj) => l.name)).toEqual(['b', 'c', 'x', 'a']);
    const sets = ok(apply(undefined, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ns', finalizers: ['p', 'q'] } }, 'one'));
    expect(ok(apply(sets, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ns', finalizers: ['r', 'p'] } }, 'two')).metadata.finalizers).toEqual(['r', 'p', 'q']);
  });
});

describe('two managers', () => {
  const base = ok(apply(undefined, gateway([listener('http')]), 'platform'));
  it('listeners merge by name: each manager owns its own', () => {
    const out = ok(apply(base, gateway([listener('https', 443, 'HTTPS')], {}), 'team'));
    expect(out.spec.listeners.map((l: Obj) => l.name)).toEqual(['http', 'https']);
    expect(Object.keys(fieldsOf(out, 'team')['f:spec']['f:listeners'])).toEqual(['k:{"name":"https"}']);
  });
  it('the same value of a field is shared, not a conflict', () => {
    const out = ok(apply(base, gateway([]), 'team'));
    expect(fieldsOf(out, 'team')).toEqual({ 'f:spec': { 'f:gatewayClassName': {} } });
    expect(fieldsOf(out, 'platform')['f:spec']).toHaveProperty('f:gatewayClassName');
  });
  it('another value is a 409 naming the field and the manager', () => {
    expect(apply(base, gateway([listener('http', 8080)]), 'team')).toEqual({ ok: false, status: 409, reason: 'Conflict',
      message: 'Apply failed with 1 conflict: conflict with "platform": .spec.listeners[name="http"].port',
      causes: [{ field: '.spec.listeners[name="http"].port', message: 'conflict with "platform"', reason: 'FieldManagerConflict' }] });
  });
  it('several conflicts are listed by manager; an updater is named with its version', () => {
    const edited = recordUpdate(base, { ...base, metadata: { ...base.metadata, labels: { owner: 'x' } } }, { fieldManager: 'kubectl-edit', kind: 'Gateway', apiVersion: GW, now: T1 });
    const r = apply(edited, { ...gateway([listener('http', 8080, 'HTTPS')], { gatewayClassName: 'other' }), metadata: { name: 'g', namespace: 'n', labels: { owner: 'y' } } }, 'team');
    expect(r).toMatchObject({ ok: false, status: 409, reason: 'Conflict' });
    if (r.ok) return;
    expect(r.message).toBe('Apply failed with 4 conflicts: conflicts with "kubectl-edit" using gateway.networking.k8s.io/v1:\n- .metadata.labels.owner\nconflicts with "platform":\n'
      + '- .spec.gatewayClassName\n- .spec.listeners[name="http"].port\n- .spec.listeners[name="http"].protocol');
    expect(r.causes?.map((c) => `${c.message} ${c.field}`)).toEqual([
      'conflict with "kubectl-edit" using gateway.networking.k8s.io/v1 .metadata.labels.owner',
      'conflict with "platform" .spec.gatewayClassName',
      'conflict with "platform" .spec.listeners[name="http"].port',
      'conflict with "platform" .spec.listeners[name="http"].protocol',
    ]);
  });
  it('force takes the fields over; a manager left with nothing disappears', () => {
    const out = ok(apply(base, gateway([listener('http', 8080, 'HTTPS')], { gatewayClassName: 'other' }), 'team', { force: true }));
    expect(out.spec).toEqual({ gatewayClassName: 'other', listeners: [{ ...listener('http', 8080, 'HTTPS'), allowedRoutes: { namespaces: { from: 'Same' } } }] });
    expect(fieldsOf(out, 'platform')).toEqual({ 'f:spec': { 'f:listeners': { 'k:{"name":"http"}': { '.': {}, 'f:name': {} } } } });
    const all = ok(apply(out, { ...gateway([listener('http', 8080, 'HTTPS')], { gatewayClassName: 'other' }) }, 'team', { force: true }));
    expect(all).toEqual(out);
  });
  it('atomic lists conflict as one field: HTTPRoute rules and hostnames', () => {
    const route = (hostnames: string[], backend: string) => ({ apiVersion: GW, kind: 'HTTPRoute', metadata: { name: 'r', namespace: 'n' },
      spec: { hostnames, rules: [{ backendRefs: [{ name: backend, port: 80 }] }] } });
    const mine = ok(apply(undefined, route(['a.example'], 'web'), 'dev'));
    expect(fieldsOf(mine, 'dev')).toEqual({ 'f:spec': { 'f:hostnames': {}, 'f:rules': {} } });
    const r = apply(mine, route(['a.example', 'b.example'], 'api'), 'other');
    expect(r).toMatchObject({ status: 409, causes: [{ field: '.spec.hostnames' }, { field: '.spec.rules' }] });
  });
});

describe('writes other than apply', () => {
  it('an update takes the fields it changes from the applier, which then conflicts on them', () => {
    const applied = ok(apply(undefined, cm({ a: '1' }), 'kubectl'));
    const edited = recordUpdate(applied, { ...applied, metadata: { ...applied.metadata, labels: { a: '2' } } }, { fieldManager: 'kubectl-edit', kind: 'ConfigMap', apiVersion: 'v1', now: T2 }) as Obj;
    expect(managers(edited)).toEqual(['kubectl/Apply', 'kubectl-edit/Update']);
    expect(fieldsOf(edited, 'kubectl-edit')).toEqual({ 'f:metadata': { 'f:labels': { 'f:a': {} } } });
    expect(fieldsOf(edited, 'kubectl')).toEqual({ 'f:data': { 'f:key': {} } });
    expect(apply(edited, cm({ a: '1' }), 'kubectl')).toMatchObject({ status: 409, causes: [{ field: '.metadata.labels.a', message: 'conflict with "kubectl-edit" using v1' }] });
    expect(ok(apply(edited, cm({ a: '1' }), 'kubectl', { force: true })).metadata.labels).toEqual({ a: '1' });
  });
  it('an object that never had managedFields is owned by before-first-apply when first applied', () => {
    const legacy = { ...cm({ a: '1' }), metadata: { ...cm({ a: '1' }).metadata, uid: 'u1', resourceVersion: '4' } };
    const same = ok(apply(legacy, cm({ a: '1' }), 'kubectl'));
    expect(managers(same)).toEqual(['kubectl/Apply', 'before-first-apply/Update']);
    expect(same.metadata.resourceVersion).toBe('4');
    expect(apply(legacy, cm({ a: '2' }), 'kubectl')).toMatchObject({ status: 409, causes: [{ field: '.metadata.labels.a', message: 'conflict with "before-first-apply" using v1' }] });
  });
  it('kubectl moving from client-side apply: a field the server defaulted since is no conflict when applied as last applied', () => {
    const manifest = { apiVersion: GW, kind: 'HTTPRoute', metadata: { name: 'r', namespace: 'n' }, spec: { parentRefs: [{ name: 'g' }] } };
    const defaulted = { ...manifest, metadata: { ...manifest.metadata, annotations: { [LAST_APPLIED]: JSON.stringify(manifest) } },
      spec: { parentRefs: [{ group: 'gateway.networking.k8s.io', kind: 'Gateway', name: 'g' }] } };
    const created = recordUpdate(undefined, defaulted, { fieldManager: 'kubectl-client-side-apply', kind: 'HTTPRoute', apiVersion: GW }) as Obj;
    expect(apply(created, manifest, 'kubectl')).toMatchObject({ ok: true });
    // another manager applying the same manifest shares the field; another value is its conflict
    expect(apply(created, manifest, 'ci')).toMatchObject({ ok: true });
    expect(apply(created, { ...manifest, spec: { parentRefs: [{ name: 'other' }] } }, 'ci'))
      .toMatchObject({ ok: false, status: 409, causes: [{ field: '.spec.parentRefs', message: `conflict with "kubectl-client-side-apply" using ${GW}` }] });
  });
  it('kubectl moving from client-side apply: fields last applied client-side, still at those values, are not conflicts', () => {
    const lastApplied = JSON.stringify(cm({ a: '1' }));
    const created = recordUpdate(undefined, { ...cm({ a: '1' }), metadata: { ...cm({ a: '1' }).metadata, annotations: { [LAST_APPLIED]: lastApplied } } },
      { fieldManager: 'kubectl-client-side-apply', kind: 'ConfigMap', apiVersion: 'v1', now: T1 }) as Obj;
    const out = ok(apply(created, cm({ a: '2' }), 'kubectl'));
    expect(out.metadata.labels).toEqual({ a: '2' });
    expect(JSON.parse(out.metadata.annotations[LAST_APPLIED])).toEqual(cm({ a: '2' }));
    // another manager than kubectl gets the conflict
    expect(apply(created, cm({ a: '2' }), 'ci')).toMatchObject({ status: 409 });
    // so does kubectl once someone else changed the field since
    const drifted = recordUpdate(created, { ...created, metadata: { ...created.metadata, labels: { a: '5' } } }, { fieldManager: 'kubectl-label', kind: 'ConfigMap', apiVersion: 'v1' }) as Obj;
    expect(apply(drifted, cm({ a: '2' }), 'kubectl')).toMatchObject({ status: 409, causes: [{ field: '.metadata.labels.a', message: 'conflict with "kubectl-label" using v1' }] });
  });
});

describe('what apply refuses', () => {
  const live = ok(apply(undefined, gateway([listener('http')]), 'ci'));
  const cases: [string, unknown, string | undefined, number, RegExp][] = [
    ['no fieldManager', gateway([]), undefined, 400, /fieldManager is required/],
    ['another apiVersion', { ...gateway([]), apiVersion: 'gateway.networking.k8s.io/v1beta1' }, 'ci', 400, /API version/],
    ['another kind', { ...gateway([]), kind: 'HTTPRoute' }, 'ci', 400, /kind/],
    ['managedFields', { ...gateway([]), metadata: { name: 'g', managedFields: [{ manager: 'x' }] } }, 'ci', 400, /managedFields must be nil/],
    ['two documents', 'apiVersion: v1\nkind: ConfigMap\n---\napiVersion: v1\nkind: ConfigMap\n', 'ci', 400, /exactly one object/],
    ['a list', { apiVersion: 'v1', kind: 'List', items: [gateway([])] }, 'ci', 400, /exactly one object/],
    ['YAML that does not parse', 'a: [1\n', 'ci', 400, /could not be read/],
    ['a YAML tag outside the core schema', 'apiVersion: !!binary aGVsbG8=\n', 'ci', 400, /could not be read|tag/],
    ['an empty body', '  \n', 'ci', 400, /empty/],
    ['a scalar', '42', 'ci', 400, /one object/],
    ['a listener without its name', gateway([{ port: 80, protocol: 'HTTP' }]), 'ci', 422, /omits key field "name"/],
    ['two listeners of one name', gateway([listener('http'), listener('http', 81)]), 'ci', 422, /duplicate entries for key/],
  ];
  for (const [name, body, manager, status, message] of cases) it(name, () => {
    const r = apply(live, body, manager, { kind: 'Gateway', apiVersion: GW });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.status).toBe(status);
    expect(r.message).toMatch(message);
  });
  it('names the field of a list item without its key', () => {
    expect(apply(live, gateway([listener('a'), { port: 80 }]), 'ci')).toMatchObject({ status: 422, reason: 'Invalid', causes: [{ field: 'spec.listeners[1].name', reason: 'FieldValueRequired' }] });
  });
  it('a resourceVersion in the configuration stays in the result, as the precondition of the write', () => {
    const out = ok(apply(live, { ...gateway([listener('http')]), metadata: { name: 'g', namespace: 'n', resourceVersion: '41' } }, 'ci'));
    expect(out.metadata.resourceVersion).toBe('41');
  });
  it('status sent in a configuration is ignored and the live status kept', () => {
    const withStatus = { ...live, status: { conditions: [{ type: 'Programmed', status: 'True' }] } };
    expect(ok(apply(withStatus, { ...gateway([listener('http')]), status: { conditions: [] } }, 'ci'))).toEqual(withStatus);
  });
});

// Random label sets applied by one or two managers.
const labels = fc.dictionary(fc.constantFrom('a', 'b', 'c', 'd', 'e', 'app.kubernetes.io/name'), fc.constantFrom('1', '2', '3'), { maxKeys: 6 });

describe('properties', () => {
  it('one manager: the result holds exactly what was applied last, and applying it again changes nothing', () => {
    fc.assert(fc.property(labels, labels, (l1, l2) => {
      const first = ok(apply(undefined, cm(l1), 'm'));
      const second = ok(apply(first, cm(l2), 'm', { now: T2 }));
      expect(second.metadata.labels ?? {}).toEqual(l2);
      expect(ok(apply(second, cm(l2), 'm', { now: '2026-12-02T00:00:00Z' }))).toEqual(second);
    }), { numRuns: 600 });
  });
  it('two managers: a conflict exactly on the keys both apply with different values; with force the second wins them', () => {
    fc.assert(fc.property(labels, labels, (l1, l2) => {
      const first = ok(apply(undefined, cm(l1), 'one'));
      const clashing = Object.keys(l2).filter((k) => k in l1 && l1[k] !== l2[k]).map((k) => `.metadata.labels.${k}`).sort();
      const r = apply(first, cm(l2), 'two');
      if (clashing.length === 0) {
        expect(r.ok).toBe(true);
        expect(ok(r).metadata.labels ?? {}).toEqual({ ...l1, ...l2 });
      } else {
        expect(r).toMatchObject({ ok: false, status: 409 });
        expect(r.ok ? [] : r.causes?.map((c) => c.field)).toEqual(clashing);
      }
      const forced = ok(apply(first, cm(l2), 'two', { force: true }));
      expect(forced.metadata.labels ?? {}).toEqual({ ...l1, ...l2 });
      // the first manager no longer owns what the second took
      const back = ok(apply(forced, cm({}), 'one'));
      expect(back.metadata.labels ?? {}).toEqual(l2);
    }), { numRuns: 600 });
  });
  it('listeners applied by two managers under distinct names merge, and each removes only its own', () => {
    const names = fc.uniqueArray(fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f'), { maxLength: 6 });
    fc.assert(fc.property(names, (all) => {
      const half = Math.floor(all.length / 2);
      const mine = all.slice(0, half).map((n) => listener(n));
      const theirs = all.slice(half).map((n) => listener(n, 81));
      const one = ok(apply(undefined, gateway(mine), 'one'));
      const both = ok(apply(one, gateway(theirs), 'two'));
      expect(both.spec.listeners.map((l: Obj) => l.name).sort()).toEqual([...all].sort());
      const gone = ok(apply(both, gateway([]), 'one'));
      expect(gone.spec.listeners?.map((l: Obj) => l.name) ?? []).toEqual(theirs.map((l) => l.name));
    }), { numRuns: 500 });
  });
  it('FieldsV1 reads back as the set it was written from', () => {
    const element = fc.oneof(fc.constantFrom('f:a', 'f:b', 'f:spec'), fc.integer({ min: 0, max: 500 }).map((n) => `k:{"port":${n}}`), fc.string({ maxLength: 3 }).map((s) => `v:${JSON.stringify(s)}`));
    fc.assert(fc.property(fc.array(fc.array(element, { minLength: 1, maxLength: 4 }), { maxLength: 10 }), (paths) => {
      const set = FieldSet.of(paths);
      expect(FieldSet.fromFieldsV1(JSON.parse(JSON.stringify(set.toFieldsV1()))).equals(set)).toBe(true);
    }), { numRuns: 1000 });
  });
});
