// ListenerSet in the pure core, for what the conformance corpus does not pin down: precedence by
// creationTimestamp before name, a ListenerSet's certificates resolved from its own namespace (a
// grant must admit ListenerSets, not Gateways), the compiled listeners naming their ListenerSet,
// the feature gate, and the GatewayClass annotation choosing the status reasons (released or #4815).
import { describe, expect, it } from 'vitest';
import { translate } from '../../src/core/translate';
import { worldOf } from '../../src/core/model/world';
import { applyDefaults, validateObject, withReasons } from '../../src/core/validate';
import { gatewayClassStatus } from '../../src/core/status/gatewayclass';
import { LISTENER_SET_STATUS_ANNOTATION } from '../../src/core/status/listener-set-mode';
import { SUPPORTED_FEATURES } from '../../src/core/status/features';
import { TEST_CERT, TEST_KEY } from '../support/tls';

const GWG = 'gateway.networking.k8s.io';
const CONTROLLER = 'switchyard.dev/gateway-controller';
const NOW = '2026-03-02T00:00:00.000Z';
const b64 = (s: string) => Buffer.from(s).toString('base64');

const gatewayClass = { apiVersion: `${GWG}/v1`, kind: 'GatewayClass', metadata: { name: 'sy', generation: 1 }, spec: { controllerName: CONTROLLER } };
const gateway = {
  apiVersion: `${GWG}/v1`, kind: 'Gateway', metadata: { name: 'gw', namespace: 'infra', generation: 1 },
  spec: { gatewayClassName: 'sy', allowedListeners: { namespaces: { from: 'All' } }, listeners: [{ name: 'http', port: 80, protocol: 'HTTP', hostname: 'gw.example.com' }] },
};
function listenerSet(ns: string, name: string, created: string, listeners: unknown[]) {
  return { apiVersion: `${GWG}/v1`, kind: 'ListenerSet', metadata: { name, namespace: ns, generation: 1, creationTimestamp: created },
    spec: { parentRef: { name: 'gw', namespace: 'infra' }, listeners } };
}
const secret = (ns: string, name: string) => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace: ns }, type: 'kubernetes.io/tls',
  data: { 'tls.crt': b64(TEST_CERT), 'tls.key': b64(TEST_KEY) } });
const grant = (fromKind: string) => ({ apiVersion: `${GWG}/v1`, kind: 'ReferenceGrant', metadata: { name: `from-${fromKind.toLowerCase()}`, namespace: 'certs' },
  spec: { from: [{ group: GWG, kind: fromKind, namespace: 'team-a' }], to: [{ group: '', kind: 'Secret' }] } });

function run(objects: unknown[], supportedFeatures?: readonly string[]) {
  const world = worldOf(objects.map((o) => applyDefaults(o)) as never);
  return translate(world, { namespace: 'infra', name: 'gw' }, { controllerName: CONTROLLER, now: NOW, ...(supportedFeatures ? { supportedFeatures } : {}) })!;
}
const statusOf = (t: ReturnType<typeof run>, ns: string, name: string) => t.listenerSetStatuses.find((e) => e.namespace === ns && e.name === name)?.status;
const listener = (t: ReturnType<typeof run>, ns: string, name: string, l: string) => statusOf(t, ns, name)?.listeners?.find((x) => x.name === l);
const condition = (conds: { type: string; status: string; reason: string }[] | undefined, type: string) => conds?.find((c) => c.type === type);

describe('ListenerSet precedence', () => {
  const same = [{ name: 'shop', port: 80, protocol: 'HTTP', hostname: 'shop.example.com' }];

  it('the older ListenerSet keeps a listener both declare, whatever the names say', () => {
    const t = run([gatewayClass, gateway, listenerSet('team-a', 'zz-old', '2026-01-01T00:00:00.000Z', same), listenerSet('team-a', 'aa-new', '2026-01-01T00:00:00.001Z', same)]);
    expect(condition(listener(t, 'team-a', 'zz-old', 'shop')?.conditions, 'Conflicted')).toMatchObject({ status: 'False' });
    expect(condition(listener(t, 'team-a', 'aa-new', 'shop')?.conditions, 'Conflicted')).toMatchObject({ status: 'True', reason: 'HostnameConflict' });
    expect(condition(statusOf(t, 'team-a', 'aa-new')?.conditions, 'Accepted')).toMatchObject({ status: 'False', reason: 'ListenersNotValid' });
    expect(t.gatewayStatus.attachedListenerSets).toBe(1);
    // the compiled table follows the same order: the Gateway's listeners, then the older ListenerSet's
    expect(t.table.listeners.map((l) => `${l.listenerSet?.name ?? '-'}/${l.name}/${l.valid}`)).toEqual(['-/http/true', 'zz-old/shop/true', 'aa-new/shop/false']);
  });

  it('at the same creationTimestamp, namespace/name decides', () => {
    const ts = '2026-01-01T00:00:00.000Z';
    const t = run([gatewayClass, gateway, listenerSet('team-b', 'a', ts, same), listenerSet('team-a', 'z', ts, same)]);
    expect(condition(listener(t, 'team-a', 'z', 'shop')?.conditions, 'Accepted')).toMatchObject({ status: 'True' });
    expect(condition(listener(t, 'team-b', 'a', 'shop')?.conditions, 'Accepted')).toMatchObject({ status: 'False', reason: 'HostnameConflict' });
  });

  it('the Gateway\'s own listeners come first even against an older ListenerSet', () => {
    const t = run([gatewayClass, { ...gateway, metadata: { ...gateway.metadata, creationTimestamp: '2026-02-01T00:00:00.000Z' } },
      listenerSet('team-a', 'early', '2026-01-01T00:00:00.000Z', [{ name: 'steal', port: 80, protocol: 'HTTP', hostname: 'gw.example.com' }])]);
    expect(condition(listener(t, 'team-a', 'early', 'steal')?.conditions, 'Conflicted')).toMatchObject({ status: 'True' });
    expect(condition(t.gatewayStatus.listeners?.[0].conditions, 'Conflicted')).toMatchObject({ status: 'False' });
  });
});

describe('ListenerSet certificates', () => {
  const https = [{ name: 'tls', port: 443, protocol: 'HTTPS', hostname: 'shop.example.com', tls: { certificateRefs: [{ name: 'own' }, { name: 'shared', namespace: 'certs' }] } }];

  it('come from its own namespace; into another one, only with a grant for ListenerSets', () => {
    const base = [gatewayClass, gateway, secret('team-a', 'own'), secret('certs', 'shared'), listenerSet('team-a', 'shop', '2026-01-01T00:00:00.000Z', https)];
    const denied = run([...base, grant('Gateway')]);
    const resolved = condition(listener(denied, 'team-a', 'shop', 'tls')?.conditions, 'ResolvedRefs') as any;
    expect(resolved).toMatchObject({ status: 'False', reason: 'RefNotPermitted' });
    expect(resolved.message).toContain('allows references from ListenerSets in "team-a"');
    const granted = run([...base, grant('ListenerSet')]);
    expect(condition(listener(granted, 'team-a', 'shop', 'tls')?.conditions, 'ResolvedRefs')).toMatchObject({ status: 'True' });
    const compiled = granted.table.listeners.find((l) => l.name === 'tls')!;
    expect(compiled.tls?.certificateRefs).toEqual([
      { group: '', kind: 'Secret', namespace: 'team-a', name: 'own' },
      { group: '', kind: 'Secret', namespace: 'certs', name: 'shared' },
    ]);
  });
});

describe('the ListenerSet feature', () => {
  it('without it claimed, no ListenerSet joins and none gets a status', () => {
    const t = run([gatewayClass, gateway, listenerSet('team-a', 'shop', '2026-01-01T00:00:00.000Z', [{ name: 'shop', port: 80, protocol: 'HTTP' }])],
      SUPPORTED_FEATURES.filter((f) => f !== 'ListenerSet'));
    expect(t.listenerSetStatuses).toEqual([]);
    expect(t.table.listeners.map((l) => l.name)).toEqual(['http']);
  });

  it('a Gateway that is not accepted leaves its ListenerSets ParentNotAccepted', () => {
    const t = run([gatewayClass, { ...gateway, spec: { ...gateway.spec, infrastructure: { parametersRef: { group: 'example.com', kind: 'Params', name: 'p' } } } },
      listenerSet('team-a', 'shop', '2026-01-01T00:00:00.000Z', [{ name: 'shop', port: 80, protocol: 'HTTP' }])]);
    const st = statusOf(t, 'team-a', 'shop');
    expect(condition(st?.conditions, 'Accepted')).toMatchObject({ status: 'False', reason: 'ParentNotAccepted' });
    expect(condition(st?.conditions, 'Programmed')).toMatchObject({ status: 'False', reason: 'ParentNotProgrammed' });
  });
});

describe('ListenerSet status per GatewayClass: the released tests\' reasons, or #4815\'s on a class that opts in', () => {
  const opted = { ...gatewayClass, metadata: { ...gatewayClass.metadata, annotations: { [LISTENER_SET_STATUS_ANNOTATION]: 'pr4815' } } };
  // the Gateway's "http" and "again" conflict with each other; "www" of "shop" asks for the hostname
  // of the Gateway's "api", "shop" of "late" for that of the older "shop"; "blocked" is in a
  // namespace the Gateway does not allow
  const gw = { ...gateway, spec: { ...gateway.spec, allowedListeners: { namespaces: { from: 'Same' } },
    listeners: [...gateway.spec.listeners, { name: 'again', port: 80, protocol: 'HTTP', hostname: 'gw.example.com' },
      { name: 'api', port: 80, protocol: 'HTTP', hostname: 'api.example.com' }] } };
  const objects = (gc: unknown) => [gc, gw,
    listenerSet('infra', 'shop', '2026-01-01T00:00:00.000Z', [{ name: 'shop', port: 80, protocol: 'HTTP', hostname: 'shop.example.com' },
      { name: 'www', port: 80, protocol: 'HTTP', hostname: 'api.example.com' }]),
    listenerSet('infra', 'late', '2026-01-01T00:00:01.000Z', [{ name: 'shop', port: 80, protocol: 'HTTP', hostname: 'shop.example.com' }]),
    listenerSet('team-a', 'blocked', '2026-01-01T00:00:02.000Z', [{ name: 'x', port: 80, protocol: 'HTTP' }])];
  const conds = (t: ReturnType<typeof run>, ns: string, name: string, l: string) =>
    Object.fromEntries((listener(t, ns, name, l)?.conditions ?? []).map((c) => [c.type, `${c.status}/${c.reason}`]));
  const setConds = (t: ReturnType<typeof run>, ns: string, name: string) =>
    Object.fromEntries((statusOf(t, ns, name)?.conditions ?? []).map((c) => [c.type, `${c.status}/${c.reason}`]));

  it('by default a conflicted ListenerSet listener carries the conflict\'s reason, and Programmed=False repeats the Accepted reason', () => {
    const t = run(objects(gatewayClass));
    expect(conds(t, 'infra', 'shop', 'www')).toMatchObject({ Accepted: 'False/HostnameConflict', Programmed: 'False/HostnameConflict', Conflicted: 'True/HostnameConflict' });
    expect(setConds(t, 'infra', 'shop')).toEqual({ Accepted: 'True/ListenersNotValid', Programmed: 'True/Programmed' });
    expect(setConds(t, 'infra', 'late')).toEqual({ Accepted: 'False/ListenersNotValid', Programmed: 'False/ListenersNotValid' });
    expect(setConds(t, 'team-a', 'blocked')).toEqual({ Accepted: 'False/NotAllowed', Programmed: 'False/NotAllowed' });
  });

  it('with switchyard.dev/listener-set-status: pr4815 it is Accepted=False/Conflicted and Programmed=False/Invalid, and a ListenerSet not programmed says Invalid', () => {
    const t = run(objects(opted));
    expect(conds(t, 'infra', 'shop', 'www')).toMatchObject({ Accepted: 'False/Conflicted', Programmed: 'False/Invalid', Conflicted: 'True/HostnameConflict' });
    expect(conds(t, 'infra', 'late', 'shop')).toMatchObject({ Accepted: 'False/Conflicted', Programmed: 'False/Invalid', Conflicted: 'True/HostnameConflict' });
    expect(conds(t, 'infra', 'shop', 'shop')).toMatchObject({ Accepted: 'True/Accepted', Programmed: 'True/Programmed', ResolvedRefs: 'True/ResolvedRefs', Conflicted: 'False/NoConflicts' });
    expect(setConds(t, 'infra', 'shop')).toEqual({ Accepted: 'True/ListenersNotValid', Programmed: 'True/Programmed' });
    expect(setConds(t, 'infra', 'late')).toEqual({ Accepted: 'False/ListenersNotValid', Programmed: 'False/Invalid' });
    expect(setConds(t, 'team-a', 'blocked')).toEqual({ Accepted: 'False/NotAllowed', Programmed: 'False/Invalid' });
  });

  it('the Gateway\'s own listeners, the routing and the ParentNotAccepted reasons are the same either way', () => {
    const [released, pr4815] = [run(objects(gatewayClass)), run(objects(opted))];
    for (const t of [released, pr4815]) {
      const own = Object.fromEntries((t.gatewayStatus.listeners?.find((l) => l.name === 'again')?.conditions ?? []).map((c) => [c.type, `${c.status}/${c.reason}`]));
      expect(own).toMatchObject({ Accepted: 'False/Invalid', Programmed: 'False/Invalid', Conflicted: 'True/HostnameConflict' });
    }
    expect(pr4815.table).toEqual(released.table);
    const rejected = { ...gw, spec: { ...gw.spec, infrastructure: { parametersRef: { group: 'example.com', kind: 'Params', name: 'p' } } } };
    const t = run([opted, rejected, listenerSet('infra', 'shop', '2026-01-01T00:00:00.000Z', [{ name: 'shop', port: 80, protocol: 'HTTP' }])]);
    expect(setConds(t, 'infra', 'shop')).toEqual({ Accepted: 'False/ParentNotAccepted', Programmed: 'False/ParentNotProgrammed' });
  });

  it('the class says it opted in, and a value the annotation does not know is refused on write', () => {
    expect(gatewayClassStatus(applyDefaults(opted) as never, { controllerName: CONTROLLER, now: NOW })?.conditions?.[0])
      .toMatchObject({ type: 'Accepted', status: 'True', message: expect.stringContaining('#4815') });
    expect(gatewayClassStatus(applyDefaults(gatewayClass) as never, { controllerName: CONTROLLER, now: NOW })?.conditions?.[0].message).not.toContain('#4815');
    const written = (value: string) => validateObject({ ...gatewayClass, metadata: { name: 'sy', annotations: { [LISTENER_SET_STATUS_ANNOTATION]: value } } });
    expect(written('pr4815').errors).toEqual([]);
    expect(written('released').errors).toEqual([]);
    const bad = written('PR4815');
    expect(withReasons(bad.errors)).toEqual([{ path: `metadata.annotations[${LISTENER_SET_STATUS_ANNOTATION}]`,
      message: 'Unsupported value: "PR4815": supported values: "released", "pr4815"', reason: 'FieldValueNotSupported' }]);
  });
});
