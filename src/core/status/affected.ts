// Which Gateways a change of one object can affect, so that the worker recomputes exactly those.
// `world` is the state after the change; `before`/`after` are the object's two versions (either
// absent for a create or a delete).
import type { World } from '../model/world';
import type {
  BackendObjectReference, Gateway, K8sObject, ObjectReference, ReferenceGrantFrom, Route, SecretObjectReference,
} from '../model/objects';
import { backendRefFilters, ruleBackendRefs, ruleFilters, rulesOf, type RouteFilter } from '../model/route-parts';
import { isRouteKind } from '../model/kinds';
import { GATEWAY_GROUP, NAMESPACE_NAME_LABEL, SERVICE_NAME_LABEL, cmp, gatewaysNamedBy, indexWorld, key } from '../refs/lookup';
import { grantFromAdmits } from '../refs/grants';
import { TranslationContext } from '../translate/context';
import { namespacePolicy } from '../attach/namespaces';

export interface GatewayKey {
  namespace: string;
  name: string;
}

export function affectedGateways(world: World, before?: K8sObject | null, after?: K8sObject | null): GatewayKey[] {
  const obj = after ?? before;
  if (!obj) return [];
  const versions = [before, after].filter((o): o is K8sObject => !!o);
  const out = new Map<string, GatewayKey>();
  const add = (namespace: string, name: string) => out.set(key(namespace, name), { namespace, name });
  const addGateway = (g: Gateway) => add(g.metadata.namespace ?? '', g.metadata.name);
  const idx = indexWorld(new TranslationContext(), world);
  const ns = obj.metadata.namespace ?? '';

  if (isRouteKind(obj.kind)) {
    for (const v of versions) for (const k of gatewaysNamedBy(v)) {
      const g = idx.gateways.get(k);
      if (g) addGateway(g);
    }
  } else switch (obj.kind) {
    case 'Gateway':
      add(ns, obj.metadata.name);
      break;
    case 'GatewayClass': {
      const names = new Set(versions.map((v) => v.metadata.name));
      for (const g of world.gateways ?? []) if (names.has(g.spec?.gatewayClassName)) addGateway(g);
      break;
    }
    case 'Namespace': {
      const labelsOf = (v: K8sObject | undefined) => (v ? { ...(v.metadata.labels ?? {}), [NAMESPACE_NAME_LABEL]: v.metadata.name }
        : { [NAMESPACE_NAME_LABEL]: obj.metadata.name });
      const lb = labelsOf(before ?? undefined);
      const la = labelsOf(after ?? undefined);
      for (const g of world.gateways ?? []) for (const l of g.spec?.listeners ?? []) {
        const policy = namespacePolicy(g, l);
        if (policy.from === 'Selector' && policy.selector && policy.selector.matches(lb) !== policy.selector.matches(la)) addGateway(g);
      }
      break;
    }
    case 'Service':
    case 'EndpointSlice': {
      const services = new Set<string>();
      for (const v of versions) {
        const svc = obj.kind === 'Service' ? v.metadata.name : v.metadata.labels?.[SERVICE_NAME_LABEL];
        if (svc) services.add(key(ns, svc));
      }
      for (const r of world.routes ?? []) if (backendTargets(r).some((t) => services.has(t))) gatewaysOfRoute(r);
      break;
    }
    case 'ReferenceGrant': {
      const froms: ReferenceGrantFrom[] = versions.flatMap((v) => v.spec?.from ?? []);
      const admits = (kind: string, namespace: string) =>
        froms.some((f) => grantFromAdmits(f, { group: GATEWAY_GROUP, kind, namespace }));
      for (const r of world.routes ?? []) {
        const rns = r.metadata.namespace ?? '';
        if (rns !== ns && admits(r.kind, rns) && backendTargets(r).some((t) => t.startsWith(`${ns}/`))) gatewaysOfRoute(r);
      }
      for (const g of world.gateways ?? []) {
        const gns = g.metadata.namespace ?? '';
        if (gns !== ns && admits('Gateway', gns) && gatewaySecretAndConfigMapRefs(g).some((t) => t.startsWith(`${ns}/`))) addGateway(g);
      }
      break;
    }
    case 'Secret':
    case 'ConfigMap': {
      const target = key(ns, obj.metadata.name);
      for (const g of world.gateways ?? [])
        if (gatewaySecretAndConfigMapRefs(g, obj.kind).includes(target)) addGateway(g);
      break;
    }
  }
  return [...out.values()].sort((a, b) => cmp(a.namespace, b.namespace) || cmp(a.name, b.name));

  function gatewaysOfRoute(r: Route) {
    for (const k of gatewaysNamedBy(r)) {
      const g = idx.gateways.get(k);
      if (g) addGateway(g);
    }
  }
}

/** "namespace/name" of every core Service a route's backendRefs and mirror filters point at. */
function backendTargets(r: Route): string[] {
  const out: string[] = [];
  const ns = r.metadata.namespace ?? '';
  const add = (ref: Partial<BackendObjectReference> | undefined) => {
    if (ref && (ref.group ?? '') === '' && (ref.kind ?? 'Service') === 'Service') out.push(key(ref.namespace ?? ns, String(ref.name)));
  };
  const filters = (fs: readonly RouteFilter[]) => fs.forEach((f) => f?.type === 'RequestMirror' && add(f.requestMirror?.backendRef));
  for (const rule of rulesOf(r)) {
    filters(ruleFilters(rule));
    for (const b of ruleBackendRefs(rule)) {
      add(b);
      filters(backendRefFilters(b));
    }
  }
  return out;
}

/** "namespace/name" of the Secrets (or ConfigMaps) a Gateway's TLS configuration points at. */
function gatewaySecretAndConfigMapRefs(g: Gateway, only?: string): string[] {
  const ns = g.metadata.namespace ?? '';
  const out: string[] = [];
  const add = (ref: Partial<SecretObjectReference | ObjectReference> | undefined, defaultKind: string) => {
    if (!ref || (ref.group ?? '') !== '') return;
    const kind = ref.kind ?? defaultKind;
    if (only === undefined || kind === only) out.push(key(ref.namespace ?? ns, String(ref.name)));
  };
  for (const l of g.spec?.listeners ?? []) for (const c of l?.tls?.certificateRefs ?? []) add(c, 'Secret');
  add(g.spec?.tls?.backend?.clientCertificateRef, 'Secret');
  const fe = g.spec?.tls?.frontend;
  for (const c of fe?.default?.validation?.caCertificateRefs ?? []) add(c, 'ConfigMap');
  for (const p of fe?.perPort ?? []) for (const c of p?.tls?.validation?.caCertificateRefs ?? []) add(c, 'ConfigMap');
  return out;
}
