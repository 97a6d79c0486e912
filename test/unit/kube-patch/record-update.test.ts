// The Update entry of writes other than apply: what a create owns, what an update takes, that a
// write changing nothing leaves managedFields (and so the object) as they were, and the ways a
// client may set or clear managedFields itself.
import { describe, expect, it } from 'vitest';
import { applyPatch, defaultFieldManager, recordUpdate } from '../../../src/core/kube-patch';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const T1 = '2026-12-01T10:00:00Z';
const T2 = '2026-12-01T11:00:00Z';
const opts = (fieldManager: string, now = T1) => ({ fieldManager, kind: 'Secret', apiVersion: 'v1', now });
const secret = (data: Record<string, string>, labels?: Record<string, string>): Obj =>
  ({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's', namespace: 'n', ...(labels ? { labels } : {}) }, type: 'kubernetes.io/tls', data });

describe('recordUpdate', () => {
  const created = recordUpdate(undefined, secret({ 'tls.crt': 'Yw==', 'tls.key': 'aw==' }, { app: 'web' }), opts('kubectl-create')) as Obj;
  it('a create owns every field it wrote, maps added whole marked "."', () => {
    expect(created.metadata.managedFields).toEqual([{ apiVersion: 'v1', fieldsType: 'FieldsV1', manager: 'kubectl-create', operation: 'Update', time: T1,
      fieldsV1: { 'f:data': { '.': {}, 'f:tls.crt': {}, 'f:tls.key': {} }, 'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } }, 'f:type': {} } }]);
  });
  it('a write that changes nothing keeps managedFields, time included', () => {
    expect(recordUpdate(created, structuredClone(created), opts('kubectl-edit', T2))).toEqual(created);
  });
  it('an update owns what it changed, from then on, and takes it from the creator', () => {
    const next = recordUpdate(created, { ...created, data: { 'tls.crt': 'Yw==', 'tls.key': 'bmV3' } }, opts('cert-manager', T2)) as Obj;
    expect(next.metadata.managedFields.map((m: Obj) => [m.manager, m.time, m.fieldsV1])).toEqual([
      ['kubectl-create', T1, { 'f:data': { '.': {}, 'f:tls.crt': {} }, 'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } }, 'f:type': {} }],
      ['cert-manager', T2, { 'f:data': { 'f:tls.key': {} } }],
    ]);
  });
  it('removing a field takes it from its owner; a manager left with nothing goes', () => {
    const next = recordUpdate(created, secret({}), opts('janitor', T2)) as Obj;
    expect(next.metadata.managedFields.map((m: Obj) => m.manager)).toEqual(['kubectl-create']);
    // data is still there (empty) and still the creator's: a member with nothing below it is {}
    expect(next.metadata.managedFields[0].fieldsV1).toEqual({ 'f:data': {}, 'f:type': {} });
  });
  it('the same manager through another version has an entry of its own', () => {
    const next = recordUpdate(created, { ...created, metadata: { ...created.metadata, labels: { app: 'api' } } }, { ...opts('kubectl-create', T2), apiVersion: 'v2' }) as Obj;
    expect(next.metadata.managedFields.map((m: Obj) => `${m.manager} ${m.apiVersion}`)).toEqual(['kubectl-create v1', 'kubectl-create v2']);
  });
  it('an object written before managedFields were kept: its fields go to before-first-apply', () => {
    const next = recordUpdate(secret({ a: 'YQ==' }), secret({ a: 'YQ==', b: 'Yg==' }), opts('kubectl-edit', T2)) as Obj;
    expect(next.metadata.managedFields.map((m: Obj) => [m.manager, m.fieldsV1])).toEqual([
      ['before-first-apply', { 'f:data': { '.': {}, 'f:a': {} }, 'f:type': {} }],
      ['kubectl-edit', { 'f:data': { 'f:b': {} } }],
    ]);
  });
  it('an object written before managedFields were kept stays as it was when a write changes nothing', () => {
    const legacy = secret({ a: 'YQ==' }, { app: 'web' });
    expect(recordUpdate(legacy, structuredClone(legacy), opts('kubectl-edit'))).toEqual(legacy);
  });
  it('managedFields a client sets are taken as they are; [{}] clears them; a malformed list is ignored', () => {
    const set = [{ manager: 'x', operation: 'Apply', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:type': {} } }];
    const taken = recordUpdate(created, { ...created, metadata: { ...created.metadata, managedFields: set } }, opts('y')) as Obj;
    expect(taken.metadata.managedFields).toEqual(set);
    const cleared = recordUpdate(created, { ...created, metadata: { ...created.metadata, managedFields: [{}] } }, opts('y')) as Obj;
    expect(cleared.metadata).not.toHaveProperty('managedFields');
    const malformed = recordUpdate(created, { ...created, metadata: { ...created.metadata, managedFields: [{ manager: 1 }] } }, opts('y')) as Obj;
    expect(malformed.metadata.managedFields).toEqual(created.metadata.managedFields);
  });
  it('a patch keeps managedFields as they were, for recordUpdate to move', () => {
    const r = applyPatch(created, { data: { extra: 'eA==' } }, 'application/strategic-merge-patch+json', { kind: 'Secret', apiVersion: 'v1' });
    expect(r.ok && (r.object as Obj).metadata.managedFields).toEqual(created.metadata.managedFields);
    const next = recordUpdate(created, (r as { object: object }).object, opts('kubectl-patch', T2)) as Obj;
    expect(next.metadata.managedFields[1]).toMatchObject({ manager: 'kubectl-patch', fieldsV1: { 'f:data': { 'f:extra': {} } } });
  });
});

describe('defaultFieldManager', () => {
  it('is the User-Agent up to its first "/", as kube-apiserver names a manager', () => {
    expect(defaultFieldManager('kubectl/v1.34.1 (linux/amd64) kubernetes/abc')).toBe('kubectl');
    expect(defaultFieldManager('')).toBe('unknown');
    expect(defaultFieldManager(undefined)).toBe('unknown');
    expect(defaultFieldManager('x'.repeat(200)).length).toBe(128);
  });
});
