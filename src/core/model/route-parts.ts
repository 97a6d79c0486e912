// The parts every route kind shares, read without knowing the kind: rules, their filters and their
// backendRefs. Stream routes (TLS, TCP, UDP) carry no filters. Objects reach the core validated and
// defaulted, but a rule or a filter may still be missing a field, so every read tolerates holes.
import type {
  BackendRef, GRPCBackendRef, GRPCRouteFilter, GRPCRouteRule, HTTPBackendRef, HTTPRouteFilter, HTTPRouteRule,
  Route, TCPRouteRule, TLSRouteRule, UDPRouteRule,
} from './objects';

export type RouteRule = HTTPRouteRule | GRPCRouteRule | TLSRouteRule | TCPRouteRule | UDPRouteRule;
export type RouteFilter = HTTPRouteFilter | GRPCRouteFilter;
export type RouteBackendRef = HTTPBackendRef | GRPCBackendRef | BackendRef;

const NONE: readonly never[] = Object.freeze([]);

export function rulesOf(route: Route): readonly RouteRule[] {
  const rules: readonly RouteRule[] | undefined = route.spec?.rules;
  return Array.isArray(rules) ? rules : NONE;
}

export function ruleFilters(rule: RouteRule | undefined): readonly RouteFilter[] {
  return rule && 'filters' in rule && Array.isArray(rule.filters) ? rule.filters : NONE;
}

export function ruleBackendRefs(rule: RouteRule | undefined): readonly RouteBackendRef[] {
  return rule && Array.isArray(rule.backendRefs) ? rule.backendRefs : NONE;
}

export function backendRefFilters(ref: RouteBackendRef | undefined): readonly RouteFilter[] {
  return ref && 'filters' in ref && Array.isArray(ref.filters) ? ref.filters : NONE;
}

/** The route's hostnames (HTTP, GRPC and TLS routes have them; TCP and UDP routes do not). */
export function routeHostnames(route: Route): readonly string[] {
  const spec = route.spec;
  return spec && 'hostnames' in spec && Array.isArray(spec.hostnames) ? spec.hostnames : NONE;
}
