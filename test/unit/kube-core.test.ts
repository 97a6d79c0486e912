// The pure translations behind the Kubernetes paths: path parsing, discovery from the kinds table,
// Table rows, ages as kubectl prints them, field selectors, the protobuf reader, the self-signed
// certificate and unknown-field pruning.
import { describe, expect, it } from 'vitest';
import { X509Certificate } from 'node:crypto';
import { parseKubePath } from '../../src/core/kube/paths';
import { aggregated, groupList, resourceList, wantsAggregated } from '../../src/core/kube/discovery';
import { KUBE_RESOURCES } from '../../src/core/kube/resources';
import { table, wantsTable } from '../../src/core/kube/table';
import { humanDuration } from '../../src/core/kube/age';
import { matchesFields, parseFieldSelector } from '../../src/core/kube/field-selector';
import { accessReviewSpec, unwrap } from '../../src/core/kube/protobuf';
import { selfSignedCertificate } from '../../src/runtime/self-signed';
import { unknownFieldPaths, withoutPaths } from '../../src/core/kube/prune';
import { matchesLabels } from '../../src/core/kube/labels';
import { KINDS } from '../../src/core/model/kinds';
import { isUnchanged } from '../../src/core/objects/write';

const GW = 'gateway.networking.k8s.io';

describe('paths', () => {
  it('tells namespaced, cluster-wide and cluster-scoped paths apart, "namespaces" being both', () => {
    expect(parseKubePath(GW, 'v1', ['namespaces', 'a', 'httproutes', 'web'])).toMatchObject({ namespace: 'a', name: 'web', template: `/apis/${GW}/v1/namespaces/:namespace/httproutes/:name` });
    expect(parseKubePath(GW, 'v1', ['httproutes'])).toMatchObject({ namespace: '', template: `/apis/${GW}/v1/httproutes` });
    expect(parseKubePath(GW, 'v1', ['gatewayclasses', 'x', 'status'])).toMatchObject({ name: 'x', status: true });
    expect(parseKubePath('', 'v1', ['namespaces', 'shop'])).toMatchObject({ name: 'shop', namespace: '' });
    expect(parseKubePath('', 'v1', ['namespaces', 'shop', 'status'])).toMatchObject({ name: 'shop', status: true });
    expect(parseKubePath('', 'v1', ['namespaces', 'shop', 'services', 'web', 'status'])).toMatchObject({ namespace: 'shop', name: 'web', status: true });
    expect(parseKubePath(GW, 'v1', ['httproutes', 'web'])).toBeNull(); // namespaced: no object without a namespace
    expect(parseKubePath(GW, 'v1', ['namespaces', 'a', 'services'])).toBeNull(); // not in this group
    expect(parseKubePath(GW, 'v1alpha2', ['namespaces', 'a', 'tcproutes'])).not.toBeNull();
    expect(parseKubePath(GW, 'v1alpha2', ['namespaces', 'a', 'httproutes'])).toBeNull(); // no v1alpha2 HTTPRoute
    expect(parseKubePath(GW, 'v1', ['namespaces', 'a', 'httproutes', 'web', 'scale'])).toBeNull();
  });
});

describe('discovery', () => {
  it('serves every kind of the kinds table at every version it accepts', () => {
    for (const k of KINDS) {
      for (const av of Object.keys(k.versions)) {
        const [group, version] = av.includes('/') ? av.split('/') : ['', av];
        const list = resourceList(group, version);
        expect(list?.resources.find((r) => r.name === k.plural)?.kind, av).toBe(k.kind);
      }
    }
    expect(groupList().groups.map((g) => g.name)).toEqual(expect.arrayContaining([GW, 'discovery.k8s.io', 'authorization.k8s.io']));
    expect(resourceList(GW, 'v9')).toBeNull();
  });

  it('puts the Gateway API kinds in the category gateway-api, with upstream short names', () => {
    const r = (kind: string) => KUBE_RESOURCES.find((x) => x.info.kind === kind)!;
    expect(r('Gateway').shortNames).toEqual(['gtw']);
    expect(r('GatewayClass').shortNames).toEqual(['gc']);
    expect(r('HTTPRoute').categories).toEqual(['gateway-api']);
    expect(r('Service').categories).not.toContain('gateway-api');
  });

  it('answers aggregated discovery only to a client asking for v2', () => {
    expect(wantsAggregated('application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json')).toBe(true);
    expect(wantsAggregated('application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json')).toBe(false);
    expect(wantsAggregated('application/json')).toBe(false);
    const core = aggregated(true);
    expect(core.items).toHaveLength(1);
    expect(core.items[0].metadata).toEqual({});
  });
});

describe('Table', () => {
  const gw = KUBE_RESOURCES.find((x) => x.info.kind === 'Gateway')!;
  const o = {
    apiVersion: `${GW}/v1`, kind: 'Gateway', metadata: { name: 'edge', namespace: 'infra', creationTimestamp: '2026-12-01T10:00:00.000Z' },
    spec: { gatewayClassName: 'sy' }, status: { addresses: [{ value: '10.0.0.1' }], conditions: [{ type: 'Programmed', status: 'True' }] },
  };
  it('prints upstream columns with Age last, computed from creationTimestamp', () => {
    const t = table(gw, [o], Date.parse('2026-12-01T10:05:30Z'), 'Metadata', { resourceVersion: '7' });
    expect(t.columnDefinitions.map((c) => c.name)).toEqual(['Name', 'Class', 'Address', 'Programmed', 'Age']);
    expect(t.rows[0].cells).toEqual(['edge', 'sy', '10.0.0.1', 'True', '5m30s']);
    expect(t.rows[0].object).toMatchObject({ kind: 'PartialObjectMetadata', metadata: { name: 'edge' } });
    expect(table(gw, [o], 0, 'None', {}).rows[0].object).toBeUndefined();
  });
  it('is asked for by the first media type of Accept', () => {
    expect(wantsTable('application/json;as=Table;v=v1;g=meta.k8s.io,application/json')).toBe(true);
    expect(wantsTable('application/json')).toBe(false);
  });
  it('ages read as kubectl reads them', () => {
    const s = 1000;
    expect([59 * s, 119 * s, 150 * s, 600 * s, 3 * 3600 * s + 120 * s, 30 * 3600 * s, 50 * 3600 * s, 400 * 86400 * s].map(humanDuration))
      .toEqual(['59s', '119s', '2m30s', '10m', '3h2m', '30h', '2d2h', '400d']);
  });
});

describe('selectors', () => {
  it('takes metadata.name and metadata.namespace, and refuses other fields', () => {
    const reqs = parseFieldSelector('metadata.name=web,metadata.namespace!=b');
    expect(matchesFields({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: 'a' } }, reqs)).toBe(true);
    expect(matchesFields({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: 'b' } }, reqs)).toBe(false);
    expect(() => parseFieldSelector('spec.type=ClusterIP')).toThrow(/not supported/);
  });
  it('label selectors match in memory as the store matches them', () => {
    expect(matchesLabels({ a: '1' }, [{ op: 'neq', key: 'b', value: '2' }])).toBe(true);
    expect(matchesLabels({ a: '1' }, [{ op: 'in', key: 'a', values: ['1', '2'] }])).toBe(true);
    expect(matchesLabels(undefined, [{ op: 'exists', key: 'a' }])).toBe(false);
  });
});

describe('protobuf', () => {
  // runtime.Unknown{typeMeta{apiVersion, kind}, raw: SelfSubjectAccessReview{spec{resourceAttributes}}}
  const field = (no: number, body: Buffer) => Buffer.concat([Buffer.from([(no << 3) | 2, body.length]), body]);
  const s = (no: number, v: string) => field(no, Buffer.from(v));
  it('reads a SelfSubjectAccessReview as kubectl posts it', () => {
    const attrs = Buffer.concat([s(1, 'team-a'), s(2, 'create'), s(3, GW), s(5, 'httproutes')]);
    const raw = field(2, field(1, attrs));
    const body = Buffer.concat([Buffer.from('k8s\0', 'binary'), field(1, Buffer.concat([s(1, 'authorization.k8s.io/v1'), s(2, 'SelfSubjectAccessReview')])), field(2, raw)]);
    const u = unwrap(body);
    expect(u.kind).toBe('SelfSubjectAccessReview');
    expect(accessReviewSpec(u.raw)).toEqual({ resourceAttributes: { namespace: 'team-a', verb: 'create', group: GW, resource: 'httproutes' } });
    expect(() => unwrap(Buffer.from('{}'))).toThrow(/magic/);
    expect(() => unwrap(Buffer.concat([Buffer.from('k8s\0', 'binary'), Buffer.from([0x0a, 0x7f])]))).toThrow(/truncated/);
  });
});

describe('self-signed certificate', () => {
  it('names the loopback and the host, is its own authority and carries its key', () => {
    const { cert, key } = selfSignedCertificate(['localhost', '127.0.0.1', '::1', 'box.example']);
    const x = new X509Certificate(cert);
    expect(x.subjectAltName).toContain('DNS:localhost');
    expect(x.subjectAltName).toContain('IP Address:127.0.0.1');
    expect(x.subjectAltName).toContain('DNS:box.example');
    expect(x.ca).toBe(true);
    expect(x.verify(x.publicKey)).toBe(true);
    expect(x.checkHost('box.example')).toBe('box.example');
    expect(key).toContain('PRIVATE KEY');
  });

  it('encodes every random serial number as DER wants it (a first serial byte of zero once made a start fail)', () => {
    // about one serial in 256 started with a zero byte the encoding kept: 1,024 starts miss none
    for (let i = 0; i < 1024; i++) {
      const { cert } = selfSignedCertificate(['localhost']);
      const serial = new X509Certificate(cert).serialNumber;
      expect(serial).toMatch(/^[0-9A-F]+$/);
      expect(serial.length % 2 === 0 && serial.startsWith('00') && parseInt(serial.slice(2, 4), 16) < 0x80).toBe(false);
    }
  });
});

describe('unknown fields', () => {
  it('are dropped by path when they are the only errors', () => {
    expect(unknownFieldPaths([{ path: 'spec.x', message: 'unknown field "spec.x"' }, { path: 'spec.y', message: 'Required value' }])).toEqual([]);
    const paths = unknownFieldPaths([{ path: 'spec.rules[0].bogus', message: 'unknown field "spec.rules[0].bogus"' }]);
    expect(withoutPaths({ spec: { rules: [{ bogus: 1, keep: 2 }] } }, paths)).toEqual({ spec: { rules: [{ keep: 2 }] } });
  });
});

describe('managedFields and "nothing changed"', () => {
  const base = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'a' }, data: { k: 'v' } };
  const a = { manager: 'kubectl', operation: 'Apply', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:k': {} } }, time: '2026-12-01T10:00:00Z' };
  const b = { manager: 'kubectl-last-applied', operation: 'Apply', fieldsType: 'FieldsV1', fieldsV1: { 'f:metadata': {} }, time: '2026-12-01T10:00:00Z' };
  const withManagers = (mf: unknown[]) => ({ ...base, metadata: { ...base.metadata, managedFields: mf } }) as never;
  it('ignores their timestamps and order, and counts a change of owners', () => {
    expect(isUnchanged(withManagers([a, b]), withManagers([b, { ...a, time: '2026-12-01T11:00:00Z' }]))).toBe(true);
    expect(isUnchanged(withManagers([a, b]), withManagers([a]))).toBe(false);
    expect(isUnchanged(withManagers([a]), withManagers([{ ...a, manager: 'ci' }]))).toBe(false);
  });
});
