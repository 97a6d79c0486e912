// What the analysis of some manifests reads of what is stored: every object in the namespaces the
// manifests live in or reach into (routes there may shadow theirs, grants there admit them), the
// cluster-scoped GatewayClasses and Namespaces, and the data of the Secrets their Gateways serve.
// The core's dependency model says what a Gateway or a route reaches (src/core/deps). Routes in
// other namespaces that attach to the same Gateways are not read: a rule of the manifests that one
// of them shadows goes unreported (the analysis errs towards silence; `switchyard analyze --server`
// reads everything).
import type { Gateway, K8sObject, ParentReference } from '../model/objects';
import { isRouteKind } from '../model/kinds';
import { gatewayOwnDependencies, listenerSetDependencies, policyDependencies, routeDependencies } from '../deps/gateway-deps';
import type { Dependency } from '../deps';

export interface AnalysisScope {
  namespaces: string[];
  /** the Secrets whose data the manifests' Gateways use (the data is not among the objects) */
  secrets: { namespace: string; name: string }[];
}

export function analysisScope(manifest: readonly K8sObject[]): AnalysisScope {
  const namespaces = new Set<string>();
  const secrets = new Map<string, { namespace: string; name: string }>();
  const reach = (deps: Dependency[]) => {
    for (const d of deps) {
      if ('namespace' in d) namespaces.add(d.namespace);
      if (d.kind === 'Secret') secrets.set(`${d.namespace}/${d.name}`, { namespace: d.namespace, name: d.name });
    }
  };
  for (const o of manifest) {
    const ns = o.metadata.namespace;
    if (ns) namespaces.add(ns);
    if (o.kind === 'Gateway') reach(gatewayOwnDependencies(o as Gateway));
    else if (o.kind === 'ListenerSet') {
      reach(listenerSetDependencies(o));
      const parentNs = o.spec?.parentRef?.namespace;
      if (typeof parentNs === 'string') namespaces.add(parentNs);
    } else if (o.kind === 'BackendTLSPolicy') reach(policyDependencies(o));
    else if (isRouteKind(o.kind)) {
      reach(routeDependencies(o));
      for (const p of (o.spec?.parentRefs ?? []) as Partial<ParentReference>[]) if (typeof p?.namespace === 'string') namespaces.add(p.namespace);
    }
  }
  namespaces.delete('');
  return { namespaces: [...namespaces].sort(), secrets: [...secrets.values()] };
}
