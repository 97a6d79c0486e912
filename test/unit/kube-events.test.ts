// Kubernetes Events, decided purely: which status transitions (and proxy reports) are worth an
// Event and which are not, the plan of a recompute carrying them, and how a stored Event is shown
// (core v1 and events.k8s.io/v1, the Table kubectl prints, field selectors, paths).
import { describe, expect, it } from 'vitest';
import { gatewayEvents, proxyReportEvents, routeParentEvents, NOTE_LIMIT } from '../../src/core/status/events';
import {
  asCoreV1, asEventsV1, eventRow, eventTable, matchesEventFields, parseEventFieldSelector, parseEventsPath, EventFieldSelectorError, type StoredKubeEvent,
} from '../../src/core/kube/events';
import { planRecompute, type Computed } from '../../src/service/recompute-plan';
import type { Written } from '../../src/adapters/store/recompute-write';
import { resourceList, aggregated, groupList } from '../../src/core/kube/discovery';
import { translate } from '../../src/core/translate';
import { worldOf } from '../../src/core/model/world';
import { applyDefaults } from '../../src/core/validate';

const GWV = 'gateway.networking.k8s.io/v1';
const route = { kind: 'HTTPRoute', namespace: 'team', name: 'web' };
const cond = (type: string, status: 'True' | 'False', reason: string, message = `${reason} message`) => ({ type, status, reason, message, lastTransitionTime: '2026-12-07T10:00:00.000Z' });
const parent = (name: string, accepted: ReturnType<typeof cond>, extra: Record<string, unknown> = {}) => ({
  parentRef: { group: 'gateway.networking.k8s.io', kind: 'Gateway', namespace: 'infra', name, ...extra },
  controllerName: 'c', conditions: [accepted, cond('ResolvedRefs', 'True', 'ResolvedRefs')],
});
const accepted = cond('Accepted', 'True', 'Accepted', 'Route is accepted');
const refused = cond('Accepted', 'False', 'NotAllowedByListeners', 'not allowed here');

describe('route events', () => {
  it('a first entry records its acceptance or refusal', () => {
    expect(routeParentEvents(route, undefined, [parent('public', refused)])).toEqual([{
      regarding: { apiVersion: GWV, kind: 'HTTPRoute', namespace: 'team', name: 'web' },
      type: 'Warning', reason: 'NotAllowedByListeners', action: 'Attach', note: 'Not accepted by Gateway infra/public: not allowed here',
    }]);
    expect(routeParentEvents(route, [], [parent('public', accepted)])).toMatchObject([{ type: 'Normal', reason: 'Accepted', note: 'Accepted by Gateway infra/public: Route is accepted' }]);
  });

  it('records a flip and a change of reason, not a new message or time under the same status and reason', () => {
    expect(routeParentEvents(route, [parent('public', refused)], [parent('public', accepted)])).toMatchObject([{ type: 'Normal', reason: 'Accepted' }]);
    expect(routeParentEvents(route, [parent('public', refused)], [parent('public', cond('Accepted', 'False', 'NoMatchingListenerHostname'))]))
      .toMatchObject([{ type: 'Warning', reason: 'NoMatchingListenerHostname' }]);
    expect(routeParentEvents(route, [parent('public', refused)], [parent('public', { ...refused, message: 'reworded', lastTransitionTime: 'later' })])).toEqual([]);
    // another condition flipping (ResolvedRefs) is not an attachment event
    const unresolved = { ...parent('public', accepted), conditions: [accepted, cond('ResolvedRefs', 'False', 'BackendNotFound')] };
    expect(routeParentEvents(route, [parent('public', accepted)], [unresolved])).toEqual([]);
  });

  it('tells parents apart by their whole parentRef, and records nothing for an entry that went', () => {
    const before = [parent('public', accepted, { sectionName: 'http' }), parent('public', accepted, { sectionName: 'https' })];
    const after = [parent('public', accepted, { sectionName: 'http' }), parent('public', refused, { sectionName: 'https' })];
    const out = routeParentEvents(route, before, after);
    expect(out).toHaveLength(1);
    expect(out[0].note).toBe('Not accepted by Gateway infra/public listener "https": not allowed here');
    expect(routeParentEvents(route, before, [])).toEqual([]);
    expect(routeParentEvents(route, before, undefined)).toEqual([]);
  });

  it('keeps a note within the 1 kB Kubernetes allows', () => {
    const [e] = routeParentEvents(route, undefined, [parent('public', cond('Accepted', 'False', 'Pending', 'x'.repeat(5000)))]);
    expect(e.note.length).toBe(NOTE_LIMIT);
    expect(e.note.endsWith('...')).toBe(true);
  });
});

describe('Gateway events', () => {
  const ref = { namespace: 'infra', name: 'public' };
  const listener = (name: string, conflicted?: ReturnType<typeof cond>) => ({ name, conditions: [cond('Accepted', 'True', 'Accepted'), conflicted ?? cond('Conflicted', 'False', 'NoConflicts')] });
  const status = (programmed: ReturnType<typeof cond>, listeners = [listener('http')]) => ({ conditions: [cond('Accepted', 'True', 'Accepted'), programmed], listeners });
  const yes = cond('Programmed', 'True', 'Programmed', 'The Gateway is programmed');
  const no = cond('Programmed', 'False', 'Invalid', 'No listener is valid');

  it('records Programmed when it appears, flips or changes its reason', () => {
    expect(gatewayEvents(ref, undefined, status(yes))).toEqual([{
      regarding: { apiVersion: GWV, kind: 'Gateway', namespace: 'infra', name: 'public' }, type: 'Normal', reason: 'Programmed', action: 'Program', note: 'The Gateway is programmed',
    }]);
    expect(gatewayEvents(ref, status(yes), status(yes))).toEqual([]);
    expect(gatewayEvents(ref, status(yes), status(no))).toMatchObject([{ type: 'Warning', reason: 'Invalid', note: 'No listener is valid' }]);
    expect(gatewayEvents(ref, status(no), status(cond('Programmed', 'False', 'AddressNotAssigned')))).toMatchObject([{ type: 'Warning', reason: 'AddressNotAssigned' }]);
    expect(gatewayEvents(ref, status(yes), undefined)).toEqual([]);
  });

  it('records a listener that becomes Conflicted, on its fieldPath, once', () => {
    const clash = cond('Conflicted', 'True', 'ProtocolConflict', 'port 80 is also TCP');
    const out = gatewayEvents(ref, status(yes), status(yes, [listener('http', clash), listener('tcp')]));
    expect(out).toEqual([{
      regarding: { apiVersion: GWV, kind: 'Gateway', namespace: 'infra', name: 'public', fieldPath: 'spec.listeners{http}' },
      type: 'Warning', reason: 'ProtocolConflict', action: 'Validate', note: 'Listener "http" is conflicted: port 80 is also TCP',
    }]);
    expect(gatewayEvents(ref, status(yes, [listener('http', clash)]), status(yes, [listener('http', clash)]))).toEqual([]);
    expect(gatewayEvents(ref, status(yes, [listener('http', clash)]), status(yes, [listener('http')]))).toEqual([]);
    expect(gatewayEvents(ref, status(yes, [listener('http', clash)]), status(yes, [listener('http', cond('Conflicted', 'True', 'HostnameConflict'))])))
      .toMatchObject([{ reason: 'HostnameConflict' }]);
  });
});

describe('proxy report events', () => {
  const ref = { namespace: 'infra', name: 'public' };
  const fine = { error: null, stale: false, version: 4 };

  it('a first report in sync records nothing; a rejected table is a Warning once', () => {
    expect(proxyReportEvents(ref, 'p1', undefined, fine, 4)).toEqual([]);
    const nack = { error: 'version 5 not applied: bad', stale: false, version: 4 };
    expect(proxyReportEvents(ref, 'p1', fine, nack, 5)).toMatchObject([{ type: 'Warning', reason: 'ProxyRejected', note: 'Proxy "p1" rejected the route table: version 5 not applied: bad', regarding: { kind: 'Gateway', name: 'public' } }]);
    expect(proxyReportEvents(ref, 'p1', nack, nack, 5)).toEqual([]);
    expect(proxyReportEvents(ref, 'p1', nack, { ...nack, error: 'version 6 not applied: worse' }, 6)).toMatchObject([{ reason: 'ProxyRejected' }]);
  });

  it('falling behind is a Warning; catching up after trouble is Normal', () => {
    const behind = { error: null, stale: true, version: 3 };
    expect(proxyReportEvents(ref, 'p1', fine, behind, 5)).toMatchObject([{ type: 'Warning', reason: 'ProxyStale', note: 'Proxy "p1" serves version 3 of the route table; the current one is 5' }]);
    expect(proxyReportEvents(ref, 'p1', behind, behind, 5)).toEqual([]);
    expect(proxyReportEvents(ref, 'p1', behind, { error: null, stale: false, version: 5 }, 5)).toMatchObject([{ type: 'Normal', reason: 'ProxySynced' }]);
    // not yet at the current version: no word of being in sync
    expect(proxyReportEvents(ref, 'p1', behind, { error: null, stale: false, version: 4 }, 5)).toEqual([]);
  });
});

describe('a recompute plan carries the Events of what it changes', () => {
  const routeParents = (parents: unknown[]) => Object.assign([{ kind: 'HTTPRoute', namespace: 'team', name: 'web', parents }], {}) as never;
  const computed = (parents: unknown[], withEvents = true): Computed => ({
    gateKey: 'c|Gateway/infra/public', owner: 'Gateway/infra/public', scope: 'c', routeOwner: 'c|Gateway/infra/public', sourcePosition: 10, now: '2026-12-07T10:00:00.000Z', durationMs: 1, deps: [],
    statuses: { gatewayStatus: { conditions: [cond('Programmed', 'True', 'Programmed')] }, routeParents: routeParents(parents) },
    ...(withEvents ? { events: { instance: 'here', retentionSeconds: 60 } } : {}),
  });
  const written = (parents: unknown[]): Written => ({
    gate: 5, gatewayStatus: { conditions: [cond('Programmed', 'True', 'Programmed')] }, parts: new Map([['HTTPRoute/team/web', { parents }]]), deps: '[]', hash: null,
  });

  it('a flipped route entry: its Event, and the Gateway none (its status did not change)', () => {
    const { plan } = planRecompute(written([parent('public', refused)]), computed([parent('public', accepted)]));
    expect(plan.events).toMatchObject({ instance: 'here', retentionSeconds: 60, drafts: [{ reason: 'Accepted', regarding: { kind: 'HTTPRoute', namespace: 'team', name: 'web' } }] });
  });

  it('nothing changed, or events not asked for: none', () => {
    expect(planRecompute(written([parent('public', accepted)]), computed([parent('public', accepted)])).plan.events).toBeNull();
    expect(planRecompute(written([parent('public', refused)]), computed([parent('public', accepted)], false)).plan.events).toBeNull();
  });
});

describe('a translation\'s first write: the Events of its statuses', () => {
  const G = 'gateway.networking.k8s.io';
  const objects = [
    { apiVersion: `${G}/v1`, kind: 'GatewayClass', metadata: { name: 'sy', generation: 1 }, spec: { controllerName: 'c' } },
    { apiVersion: `${G}/v1`, kind: 'Gateway', metadata: { name: 'gw', namespace: 'infra', generation: 1 },
      spec: { gatewayClassName: 'sy', allowedListeners: { namespaces: { from: 'All' } }, listeners: [{ name: 'http', port: 80, protocol: 'HTTP', hostname: 'gw.example.com' }] } },
    ...['old', 'new'].map((name, i) => ({ apiVersion: `${G}/v1`, kind: 'ListenerSet', metadata: { name, namespace: 'team', generation: 1, creationTimestamp: `2026-01-01T00:00:0${i}.000Z` },
      spec: { parentRef: { name: 'gw', namespace: 'infra' }, listeners: [{ name: 'shop', port: 80, protocol: 'HTTP', hostname: 'shop.example.com' }] } })),
    { apiVersion: `${G}/v1`, kind: 'HTTPRoute', metadata: { name: 'web', namespace: 'team', generation: 1 }, spec: { parentRefs: [{ name: 'gw', namespace: 'infra' }] } },
  ];

  it('the Gateway programmed, the route refused (its listener admits its own namespace only), each ListenerSet programmed or not, the younger one\'s listener conflicted', () => {
    const t = translate(worldOf(objects.map((o) => applyDefaults(o)) as never), { namespace: 'infra', name: 'gw' }, { controllerName: 'c', now: '2026-03-02T00:00:00.000Z' })!;
    const { plan } = planRecompute({ gate: null, parts: new Map(), deps: '[]', hash: null }, {
      gateKey: 'c|Gateway/infra/gw', owner: 'Gateway/infra/gw', scope: 'c', routeOwner: 'c|Gateway/infra/gw', sourcePosition: 1, now: 'x', durationMs: 0, deps: [],
      statuses: { gatewayStatus: t.gatewayStatus, routeParents: t.routeParents, policyAncestors: t.policyAncestors, listenerSets: t.listenerSetStatuses },
      events: { instance: 'here', retentionSeconds: 60 },
    });
    const seen = plan.events!.drafts.map((e) => `${e.type} ${e.reason} ${e.regarding.kind}/${e.regarding.namespace}/${e.regarding.name}${e.regarding.fieldPath ? ` ${e.regarding.fieldPath}` : ''}`);
    expect(seen.sort()).toEqual([
      'Normal Programmed Gateway/infra/gw',
      'Normal Programmed ListenerSet/team/old',
      'Warning HostnameConflict ListenerSet/team/new spec.listeners{shop}',
      'Warning ListenersNotValid ListenerSet/team/new',
      'Warning NotAllowedByListeners HTTPRoute/team/web',
    ]);
  });
});

const stored = (over: Partial<StoredKubeEvent> = {}): StoredKubeEvent => ({
  namespace: 'team', name: 'web.18ef0c8866afcc80', uid: 'u-1', resourceVersion: 42,
  regarding: { apiVersion: GWV, kind: 'HTTPRoute', namespace: 'team', name: 'web', uid: 'r-1' },
  type: 'Warning', reason: 'NotAllowedByListeners', action: 'Attach', note: 'Not accepted ', reportingController: 'ctl', reportingInstance: 'host',
  count: 1, firstTime: '2026-12-07T10:00:00.123Z', lastTime: '2026-12-07T10:05:00.456Z', ...over,
});

describe('an Event as served', () => {
  it('core v1: involvedObject, message, count and the timestamps; a series only once repeated', () => {
    const one = asCoreV1(stored());
    expect(one).toMatchObject({
      apiVersion: 'v1', kind: 'Event', metadata: { name: 'web.18ef0c8866afcc80', namespace: 'team', uid: 'u-1', resourceVersion: '42', creationTimestamp: '2026-12-07T10:00:00Z' },
      involvedObject: { kind: 'HTTPRoute', uid: 'r-1' }, message: 'Not accepted ', source: { component: 'ctl' }, reportingComponent: 'ctl', reportingInstance: 'host',
      firstTimestamp: '2026-12-07T10:00:00Z', lastTimestamp: '2026-12-07T10:05:00Z', count: 1, eventTime: '2026-12-07T10:00:00.123000Z',
    });
    expect(one).not.toHaveProperty('series');
    expect(asCoreV1(stored({ count: 3 })).series).toEqual({ count: 3, lastObservedTime: '2026-12-07T10:05:00.456000Z' });
  });

  it('events.k8s.io/v1: regarding, note, reportingController and the deprecated fields', () => {
    expect(asEventsV1(stored({ count: 2 }))).toMatchObject({
      apiVersion: 'events.k8s.io/v1', regarding: { name: 'web' }, note: 'Not accepted ', reportingController: 'ctl', action: 'Attach',
      series: { count: 2 }, deprecatedCount: 2, deprecatedSource: { component: 'ctl' }, deprecatedFirstTimestamp: '2026-12-07T10:00:00Z',
    });
  });

  it('the Table: kube-apiserver columns, the object as kind/name, five more with -o wide', () => {
    const now = Date.parse('2026-12-07T10:06:00.000Z');
    const t = eventTable('core', [stored({ count: 4, regarding: { ...stored().regarding, fieldPath: 'spec.listeners{http}' } })], now, 'Metadata', { resourceVersion: '42' });
    expect(t.columnDefinitions.filter((c) => c.priority === 0).map((c) => c.name)).toEqual(['Last Seen', 'Type', 'Reason', 'Object', 'Message']);
    expect(t.rows[0].cells).toEqual(['59s', 'Warning', 'NotAllowedByListeners', 'httproute/web', 'spec.listeners{http}', 'ctl, host', 'Not accepted', '6m', 4, 'web.18ef0c8866afcc80']);
    expect(t.rows[0].object).toMatchObject({ kind: 'PartialObjectMetadata', metadata: { namespace: 'team' } });
    expect(eventRow('events.k8s.io', stored(), now, 'Object').object).toMatchObject({ apiVersion: 'events.k8s.io/v1' });
  });
});

describe('Event field selectors', () => {
  it('takes the fields kubectl describe and kubectl events send, by either version\'s names', () => {
    const describe = parseEventFieldSelector('core', 'involvedObject.kind=HTTPRoute,involvedObject.uid=r-1,involvedObject.name=web,involvedObject.namespace=team');
    expect(matchesEventFields(stored(), describe)).toBe(true);
    expect(matchesEventFields(stored(), parseEventFieldSelector('core', 'involvedObject.kind=HTTPRoute,involvedObject.apiVersion=gateway.networking.k8s.io/v1,involvedObject.name=web'))).toBe(true);
    expect(matchesEventFields(stored(), parseEventFieldSelector('core', 'involvedObject.uid=other'))).toBe(false);
    expect(matchesEventFields(stored(), parseEventFieldSelector('events.k8s.io', 'regarding.name=web,type=Warning,reportingController=ctl'))).toBe(true);
    expect(matchesEventFields(stored(), parseEventFieldSelector('core', 'type!=Warning'))).toBe(false);
    expect(matchesEventFields(stored(), parseEventFieldSelector('core', 'reason==NotAllowedByListeners,metadata.namespace=team,source=ctl'))).toBe(true);
  });

  it('refuses a field the version does not have', () => {
    expect(() => parseEventFieldSelector('core', 'regarding.name=web')).toThrow(EventFieldSelectorError);
    expect(() => parseEventFieldSelector('events.k8s.io', 'involvedObject.name=web')).toThrow(/field label not supported: involvedObject.name/);
    expect(() => parseEventFieldSelector('core', 'spec.x=1')).toThrow(EventFieldSelectorError);
    expect(() => parseEventFieldSelector('core', 'nonsense')).toThrow(/not a field requirement/);
  });
});

describe('Event paths and discovery', () => {
  it('parses both versions\' paths, namespaced or across namespaces', () => {
    expect(parseEventsPath('', 'v1', ['events'])).toMatchObject({ api: 'core', namespace: '' });
    expect(parseEventsPath('', 'v1', ['namespaces', 'team', 'events'])).toMatchObject({ api: 'core', namespace: 'team', template: '/api/v1/namespaces/:namespace/events' });
    expect(parseEventsPath('events.k8s.io', 'v1', ['namespaces', 'team', 'events', 'x'])).toMatchObject({ api: 'events.k8s.io', namespace: 'team', name: 'x' });
    expect(parseEventsPath('events.k8s.io', 'v1beta1', ['events'])).toBeNull();
    expect(parseEventsPath('', 'v1', ['services'])).toBeNull();
    expect(parseEventsPath('', 'v1', ['namespaces', 'team', 'events', 'x', 'status'])).toBeNull();
  });

  it('lists events in core v1 and in events.k8s.io/v1, read only', () => {
    expect(resourceList('', 'v1')!.resources.find((r) => r.name === 'events')).toMatchObject({ kind: 'Event', namespaced: true, verbs: ['get', 'list', 'watch'], shortNames: ['ev'] });
    expect(resourceList('events.k8s.io', 'v1')!.resources.map((r) => r.name)).toEqual(['events']);
    expect(groupList().groups.map((g) => g.name)).toContain('events.k8s.io');
    const agg = aggregated(false).items.find((i) => i.metadata.name === 'events.k8s.io');
    expect(agg?.versions[0].resources.map((r) => (r as { resource: string }).resource)).toEqual(['events']);
    expect(aggregated(true).items[0].versions[0].resources.map((r) => (r as { resource: string }).resource)).toContain('events');
  });
});
