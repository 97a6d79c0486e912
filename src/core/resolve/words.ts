// How resolve names things in its answer, honouring what the caller may read: a route in a
// namespace the caller may not read is "a route in another namespace", nothing more.
import { BackendReason } from '../status/reasons';
import type { CompiledBackend, CompiledRoute } from '../compile/types';
import type { ResolveBackend, ResolveRouteRef } from './types';

export interface Visibility {
  canRead: (namespace: string) => boolean;
}

export function routeRef(route: { kind: string; namespace: string; name: string }, v: Visibility): ResolveRouteRef {
  if (!v.canRead(route.namespace)) return { kind: route.kind, redacted: true };
  return { kind: route.kind, namespace: route.namespace, name: route.name };
}

export function routeWords(route: { kind: string; namespace: string; name: string }, v: Visibility): string {
  if (!v.canRead(route.namespace)) return 'a route in another namespace';
  return `${route.kind} ${route.namespace}/${route.name}`;
}

export function ruleWords(route: CompiledRoute, ruleIndex: number, ruleName: string | undefined, v: Visibility): string {
  const named = ruleName && v.canRead(route.namespace) ? ` ("${ruleName}")` : '';
  return `${routeWords(route, v)} rule ${ruleIndex}${named}`;
}

export function backendWords(b: CompiledBackend, v: Visibility): string {
  if (!v.canRead(b.namespace)) return `a ${b.kind} in another namespace${b.port !== undefined ? ` (port ${b.port})` : ''}`;
  return `${b.kind === 'Service' && !b.group ? '' : `${b.kind} `}${b.namespace}/${b.name}${b.port !== undefined ? `:${b.port}` : ''}`;
}

export function resolveBackend(b: CompiledBackend, total: number, v: Visibility): ResolveBackend {
  const visible = v.canRead(b.namespace);
  return {
    group: b.group,
    kind: b.kind,
    ...(visible ? { namespace: b.namespace, name: b.name } : {}),
    ...(b.port !== undefined ? { port: b.port } : {}),
    weight: b.weight,
    share: total > 0 ? b.weight / total : 0,
    valid: b.valid,
    ...(b.valid ? {} : { reason: b.reason ?? BackendReason.Invalid }),
    endpoints: b.endpoints.length,
  };
}

export function percent(x: number): string {
  return `${Math.round(x * 1000) / 10}%`;
}
