// The discovery documents kubectl and client libraries read before anything else, made from the
// kinds table: /api, /api/v1, /apis, /apis/{group}, /apis/{group}/{version}, and the aggregated form
// (apidiscovery.k8s.io/v2) that kubectl 1.30+ asks for first.
import type { APIResource } from './types';
import { groups, resourcesAt, type KubeResource } from './resources';
import { EVENTS_GROUP, eventsAggregatedResource, eventsApiResource } from './events';

export const OBJECT_VERBS = ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'];

/** Served besides the object kinds: `kubectl auth can-i` (and `--list`) posts here. */
export const AUTHORIZATION_GROUP = 'authorization.k8s.io';
/** and `kubectl auth whoami` here (v1 first, then v1beta1 where v1 is not found). */
export const AUTHENTICATION_GROUP = 'authentication.k8s.io';

const review = (name: string, kind: string): APIResource => ({ name, singularName: name.replace(/s$/, ''), namespaced: false, kind, verbs: ['create'] });

/** The review resources, by group and version: each answers a create (POST) about its caller, from the role table. */
export const REVIEWS: Readonly<Record<string, Readonly<Record<string, readonly APIResource[]>>>> = {
  [AUTHORIZATION_GROUP]: { v1: [review('selfsubjectaccessreviews', 'SelfSubjectAccessReview'), review('selfsubjectrulesreviews', 'SelfSubjectRulesReview')] },
  [AUTHENTICATION_GROUP]: { v1: [review('selfsubjectreviews', 'SelfSubjectReview')], v1beta1: [review('selfsubjectreviews', 'SelfSubjectReview')] },
};

/** The review a POST to /apis/{group}/{version}/{resource} makes, or undefined. */
export function reviewAt(group: string, version: string, resource: string): APIResource | undefined {
  return REVIEWS[group]?.[version]?.find((r) => r.name === resource);
}

function apiResources(r: KubeResource): APIResource[] {
  const main: APIResource = {
    name: r.info.plural, singularName: r.singular, namespaced: r.info.scope === 'Namespaced', kind: r.info.kind, verbs: OBJECT_VERBS,
  };
  if (r.shortNames.length) main.shortNames = r.shortNames;
  if (r.categories.length) main.categories = r.categories;
  // status is written by the control plane alone: readable, never writable
  const status: APIResource = { name: `${r.info.plural}/status`, singularName: '', namespaced: main.namespaced, kind: r.info.kind, verbs: ['get'] };
  return [main, status];
}

function groupVersions(): { name: string; versions: string[] }[] {
  return [...groups().filter((g) => g.name !== ''), { name: EVENTS_GROUP, versions: ['v1'] }, ...Object.entries(REVIEWS).map(([name, versions]) => ({ name, versions: Object.keys(versions) }))];
}

/** Events are served in core v1 and in events.k8s.io/v1 (core/kube/events.ts), beside the stored kinds. */
const servesEvents = (group: string, version: string) => version === 'v1' && (group === '' || group === EVENTS_GROUP);

export function coreVersions() {
  return { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: '' }] };
}

/** An APIResourceList, or null when the group/version is not served. */
export function resourceList(group: string, version: string) {
  const groupVersion = group ? `${group}/${version}` : version;
  if (Object.hasOwn(REVIEWS, group)) {
    const reviews = REVIEWS[group][version];
    return reviews ? { kind: 'APIResourceList', apiVersion: 'v1', groupVersion, resources: [...reviews] } : null;
  }
  const served = resourcesAt(group, version);
  const events = servesEvents(group, version) ? [eventsApiResource()] : [];
  if (served.length === 0 && events.length === 0) return null;
  return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion, resources: [...served.flatMap(apiResources), ...events] };
}

function apiGroup(g: { name: string; versions: string[] }) {
  const versions = g.versions.map((v) => ({ groupVersion: `${g.name}/${v}`, version: v }));
  return { name: g.name, versions, preferredVersion: versions[0] };
}

export function groupList() {
  return { kind: 'APIGroupList', apiVersion: 'v1', groups: groupVersions().map(apiGroup) };
}

export function group(name: string) {
  const g = groupVersions().find((x) => x.name === name);
  return g ? { kind: 'APIGroup', apiVersion: 'v1', ...apiGroup(g) } : null;
}

/** The content type of aggregated discovery: a client that does not ask for it gets the plain lists. */
export const AGGREGATED_V2 = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';

export function wantsAggregated(accept: string | undefined): boolean {
  return (accept ?? '').split(',').some((part) => {
    const p = part.replace(/\s+/g, '').toLowerCase();
    return p.includes('g=apidiscovery.k8s.io') && p.includes('v=v2;') && p.includes('as=apigroupdiscoverylist') && !p.includes('v=v2beta1');
  });
}

function aggregatedResource(r: KubeResource, version: string) {
  const responseKind = { group: r.group, version, kind: r.info.kind };
  const out: Record<string, unknown> = {
    resource: r.info.plural, responseKind, scope: r.info.scope === 'Namespaced' ? 'Namespaced' : 'Cluster',
    singularResource: r.singular, verbs: OBJECT_VERBS,
    subresources: [{ subresource: 'status', responseKind, verbs: ['get'] }],
  };
  if (r.shortNames.length) out.shortNames = r.shortNames;
  if (r.categories.length) out.categories = r.categories;
  return out;
}

/** `core`: the list for /api (the core group alone); else the one for /apis. */
export function aggregated(core: boolean) {
  const gs = core ? groups().filter((g) => g.name === '') : groupVersions();
  const items = gs.map((g) => ({
    metadata: g.name ? { name: g.name } : {},
    versions: g.versions.map((v) => ({
      version: v,
      resources: Object.hasOwn(REVIEWS, g.name)
        ? REVIEWS[g.name][v].map((r) => ({ resource: r.name, responseKind: { group: g.name, version: v, kind: r.kind }, scope: 'Cluster', singularResource: r.singularName, verbs: r.verbs }))
        : [...resourcesAt(g.name, v).map((r) => aggregatedResource(r, v)), ...(servesEvents(g.name, v) ? [eventsAggregatedResource(g.name)] : [])],
      freshness: 'Current',
    })),
  }));
  return { kind: 'APIGroupDiscoveryList', apiVersion: 'apidiscovery.k8s.io/v2', metadata: {}, items };
}
