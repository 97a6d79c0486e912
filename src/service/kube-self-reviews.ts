// SelfSubjectReview (`kubectl auth whoami`) and SelfSubjectRulesReview (`kubectl auth can-i --list`):
// who the token is, and what it may do in a namespace, both read from the role table (access.ts)
// through the same questions SelfSubjectAccessReview asks, so the three never disagree.
import type { Principal } from './principal';
import { reviewAccess } from './kube-access-review';
import { canRead } from './access';
import { KUBE_RESOURCES } from '../core/kube/resources';
import { AUTHENTICATION_GROUP, AUTHORIZATION_GROUP, REVIEWS } from '../core/kube/discovery';

export interface UserInfo {
  username: string;
  groups: string[];
  extra?: Record<string, string[]>;
}

/** The groups say the role (`switchyard:developer`); extra holds the namespaces or Gateways it is limited to. */
export function userInfoOf(p: Principal): UserInfo {
  const extra: Record<string, string[]> = {};
  if (p.namespaces?.length) extra['switchyard.dev/namespaces'] = [...p.namespaces];
  if (p.gateways?.length) extra['switchyard.dev/gateways'] = [...p.gateways];
  return { username: p.name, groups: [`switchyard:${p.role}`, 'system:authenticated'], ...(Object.keys(extra).length ? { extra } : {}) };
}

/** What every token may GET besides resources: discovery, the OpenAPI documents, the version, health. */
export const DISCOVERY_URLS = ['/api', '/api/*', '/apis', '/apis/*', '/healthz', '/openapi', '/openapi/*', '/readyz', '/version', '/version/'];

/** Whether a non-resource request is one every token may make (`kubectl auth can-i get /apis`). */
export function discoveryAllows(verb: string | undefined, path: string | undefined): boolean {
  if (verb !== 'get' || !path) return false;
  return DISCOVERY_URLS.some((u) => (u.endsWith('*') ? path.startsWith(u.slice(0, -1)) : path === u));
}

export interface ResourceRule {
  verbs: string[];
  apiGroups: string[];
  resources: string[];
  resourceNames?: string[];
}

export interface RulesStatus {
  resourceRules: ResourceRule[];
  nonResourceRules: { verbs: string[]; nonResourceURLs: string[] }[];
  incomplete: boolean;
}

/** The verbs the object paths serve, in the order kubectl prints them. */
const VERBS = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'];

/** The rules that hold for `p` in `namespace` (cluster-scoped kinds whatever it is). */
export function rulesFor(p: Principal, namespace: string): RulesStatus {
  if (p.role === 'admin')
    return { resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }], nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }], incomplete: false };
  // one rule per group and set of verbs, listing the resources they apply to
  const byVerbs = new Map<string, ResourceRule>();
  const add = (group: string, verbs: string[], resource: string) => {
    const key = `${group}\0${verbs.join(',')}`;
    const rule = byVerbs.get(key) ?? { verbs, apiGroups: [group], resources: [] };
    rule.resources.push(resource);
    byVerbs.set(key, rule);
  };
  const named: ResourceRule[] = [];
  for (const r of KUBE_RESOURCES) {
    const ask = (verb: string, subresource?: string) => reviewAccess(p, { namespace: namespace || undefined, verb, group: r.group, resource: r.info.plural, subresource }).allowed;
    const verbs = VERBS.filter((v) => ask(v));
    if (verbs.length) add(r.group, verbs, r.info.plural);
    if (ask('get', 'status')) add(r.group, ['get'], `${r.info.plural}/status`);
    // a Namespace object is readable by name where its namespace is one of the token's
    if (r.info.kind === 'Namespace' && !verbs.includes('get')) {
      const names = (p.namespaces ?? []).filter((n) => canRead(p, 'Namespace', undefined, n));
      if (names.length) named.push({ verbs: ['get'], apiGroups: [r.group], resources: [r.info.plural], resourceNames: names });
    }
  }
  const reviews: ResourceRule[] = [AUTHORIZATION_GROUP, AUTHENTICATION_GROUP].map((g) => ({
    verbs: ['create'], apiGroups: [g], resources: [...new Set(Object.values(REVIEWS[g]).flat().map((x) => x.name))],
  }));
  return {
    resourceRules: [...byVerbs.values(), ...named, ...reviews],
    nonResourceRules: [{ verbs: ['get'], nonResourceURLs: DISCOVERY_URLS }],
    incomplete: false,
  };
}
