// The demo's picture, for a real Gateway: every route that names it, attached or refused, with the
// reason the controller wrote in the route's status and, for a refusal, what would fix it.
import type { K8sObject } from './api';
import { sameGroup } from './api';

export interface Attachment {
  key: string;
  kind: string;
  namespace: string;
  name: string;
  /** the parentRef's sectionName / port, when it names one */
  section?: string;
  state: 'attached' | 'refused' | 'pending';
  reason: string;
  message: string;
  /** a refused or partly broken route: what would fix it, in words */
  fix?: string;
  /** NotAllowedByListeners: the route's namespace, which a listener could admit */
  admit?: string;
  /** ResolvedRefs false: a reference that does not resolve (the route may still be attached) */
  refs?: { reason: string; message: string };
  hostnames: string[];
}

interface ParentRef {
  group?: string;
  kind?: string;
  namespace?: string;
  name: string;
  sectionName?: string;
  port?: number;
}

export function namesGateway(route: K8sObject, gw: { namespace: string; name: string }): ParentRef[] {
  const refs: ParentRef[] = route.spec?.parentRefs ?? [];
  return refs.filter((p) => (p.group ?? sameGroup) === sameGroup && (p.kind ?? 'Gateway') === 'Gateway' && p.name === gw.name && (p.namespace ?? route.metadata.namespace) === gw.namespace);
}

const sameRef = (a: ParentRef, b: ParentRef, routeNs: string) =>
  a.name === b.name && (a.namespace ?? routeNs) === (b.namespace ?? routeNs) && (a.sectionName ?? '') === (b.sectionName ?? '') && (a.port ?? 0) === (b.port ?? 0) && (a.kind ?? 'Gateway') === (b.kind ?? 'Gateway');

type Cond = { type: string; status: string; reason: string; message?: string };

function fixFor(reason: string, message: string, route: K8sObject, gw: K8sObject, ref: ParentRef): { fix?: string; admit?: string } {
  const ns = route.metadata.namespace!;
  const listeners: { name: string; hostname?: string; port: number; protocol: string }[] = gw.spec?.listeners ?? [];
  switch (reason) {
    case 'NotAllowedByListeners': {
      const gwName = `${gw.metadata.namespace}/${gw.metadata.name}`;
      // the controller's message says which side refused: the namespace, or the route's kind
      const byNamespace = /namespace/i.test(message);
      const byKind = /kind/i.test(message);
      const parts: string[] = [];
      if (byNamespace || !byKind) parts.push(`Let a listener of ${gwName} admit routes from namespace "${ns}" (its allowedRoutes.namespaces: a selector that matches the namespace, or from: All).`);
      if (byKind || !byNamespace) parts.push(`Let a listener of ${gwName} admit ${route.kind}s (its allowedRoutes.kinds).`);
      return { fix: parts.join(' '), admit: byNamespace || !byKind ? ns : undefined };
    }
    case 'NoMatchingListenerHostname': {
      const hosts = listeners.map((l) => l.hostname ?? '*').join(', ');
      return { fix: `The route's hostnames (${(route.spec?.hostnames ?? []).join(', ') || 'none'}) intersect none of the listeners' (${hosts}): add a hostname the listener accepts, or a listener for these names.` };
    }
    case 'NoMatchingParent':
      return { fix: `The parentRef names ${ref.sectionName ? `section "${ref.sectionName}"` : ''}${ref.port ? ` port ${ref.port}` : ''}, which no listener matches; the listeners are ${listeners.map((l) => `${l.name} (${l.protocol}:${l.port})`).join(', ')}.` };
    case 'UnsupportedValue':
    case 'NotAllowedByParent':
      return { fix: "Check the listener's protocol and allowedRoutes.kinds against the route's kind." };
    default:
      return {};
  }
}

function refsFix(reason: string, route: K8sObject): string | undefined {
  if (reason === 'RefNotPermitted') {
    const ns = route.metadata.namespace;
    const targets = new Set<string>();
    for (const rule of route.spec?.rules ?? []) for (const b of rule.backendRefs ?? []) if (b.namespace && b.namespace !== ns) targets.add(`${b.namespace}`);
    const where = [...targets].join(', ') || 'the backend\u2019s namespace';
    return `A ReferenceGrant is missing: in ${where}, one that lets ${route.kind}s from namespace "${ns}" refer to Services.`;
  }
  if (reason === 'BackendNotFound') return 'Create the Service the backendRef names, or correct the name and port.';
  if (reason === 'InvalidKind') return 'A backendRef names a kind this controller cannot send traffic to: use a Service.';
  return undefined;
}

/** One row per (route, parentRef naming the Gateway), refused rows first, then by namespace and name. */
export function attachmentsOf(gw: K8sObject, routes: Iterable<K8sObject>, controller?: string): Attachment[] {
  const at = { namespace: gw.metadata.namespace!, name: gw.metadata.name };
  const rows: Attachment[] = [];
  for (const route of routes) {
    const refs = namesGateway(route, at);
    if (refs.length === 0) continue;
    const ns = route.metadata.namespace!;
    for (const ref of refs) {
      const parent = (route.status?.parents ?? []).find((p: { parentRef: ParentRef; controllerName?: string }) => sameRef(p.parentRef, ref, ns) && (!controller || p.controllerName === controller));
      const conds: Cond[] = parent?.conditions ?? [];
      const accepted = conds.find((c) => c.type === 'Accepted');
      const resolved = conds.find((c) => c.type === 'ResolvedRefs');
      const section = ref.sectionName ?? (ref.port ? `port ${ref.port}` : undefined);
      const base = { kind: route.kind, namespace: ns, name: route.metadata.name, section, hostnames: route.spec?.hostnames ?? [], key: `${route.kind}/${ns}/${route.metadata.name}/${ref.sectionName ?? ''}/${ref.port ?? ''}` };
      const refsBroken = resolved && resolved.status === 'False' ? { reason: resolved.reason, message: `${resolved.message ?? resolved.reason}${refsFix(resolved.reason, route) ? ` \u2014 ${refsFix(resolved.reason, route)}` : ''}` } : undefined;
      if (!accepted) {
        rows.push({ ...base, state: 'pending', reason: 'no status', message: 'No controller has reported on this route for this Gateway (yet): the controller\u2019s explanation says why.', refs: refsBroken });
      } else if (accepted.status === 'True') {
        rows.push({ ...base, state: 'attached', reason: accepted.reason, message: accepted.message ?? 'Accepted', refs: refsBroken });
      } else {
        rows.push({ ...base, state: 'refused', reason: accepted.reason, message: accepted.message ?? accepted.reason, ...fixFor(accepted.reason, accepted.message ?? '', route, gw, ref), refs: refsBroken });
      }
    }
  }
  const order = { refused: 0, pending: 1, attached: 2 } as const;
  rows.sort((a, b) => order[a.state] - order[b.state] || a.namespace.localeCompare(b.namespace) || a.name.localeCompare(b.name) || a.kind.localeCompare(b.kind));
  return rows;
}

const NAME_LABEL = 'kubernetes.io/metadata.name';

/** The namespaces a listener admits, in words ("shop only", "all", "those labelled ..."). */
export function admittedIn(gw: K8sObject, listener: { allowedRoutes?: { namespaces?: { from?: string; selector?: { matchLabels?: Record<string, string>; matchExpressions?: { key: string; operator: string; values?: string[] }[] } } } }): { words: string; names?: string[] } {
  const ns = listener.allowedRoutes?.namespaces;
  const from = ns?.from ?? 'Same';
  if (from === 'All') return { words: 'every namespace' };
  if (from === 'Same') return { words: `namespace ${gw.metadata.namespace} only`, names: [gw.metadata.namespace!] };
  const sel = ns?.selector ?? {};
  const exprs = sel.matchExpressions ?? [];
  const byName = exprs.find((e) => e.key === NAME_LABEL && e.operator === 'In');
  if (byName && exprs.length === 1 && !Object.keys(sel.matchLabels ?? {}).length) return { words: `namespaces ${byName.values!.join(', ')}`, names: byName.values };
  const parts = [...Object.entries(sel.matchLabels ?? {}).map(([k, v]) => `${k}=${v}`), ...exprs.map((e) => `${e.key} ${e.operator} ${(e.values ?? []).join(',')}`)];
  return { words: `namespaces labelled ${parts.join(', ') || '(any)'}` };
}

/**
 * The Gateway's listeners with `ns` admitted on `listenerName` (admit) or no longer admitted (refuse),
 * written as a name selector so that the change says exactly which namespaces are let in.
 */
export function withNamespace(gw: K8sObject, listenerName: string, ns: string, admit: boolean): unknown[] {
  const own = gw.metadata.namespace!;
  return (gw.spec?.listeners ?? []).map((l: { name: string; allowedRoutes?: Record<string, unknown> }) => {
    if (l.name !== listenerName) return l;
    const current = admittedIn(gw, l);
    const names = new Set(current.names ?? (admit ? [own] : []));
    if (admit) names.add(ns);
    else names.delete(ns);
    const list = [...names].sort();
    const namespaces = list.length === 1 && list[0] === own ? { from: 'Same' } : { from: 'Selector', selector: { matchExpressions: [{ key: NAME_LABEL, operator: 'In', values: list }] } };
    return { ...l, allowedRoutes: { ...(l.allowedRoutes ?? {}), namespaces } };
  });
}
