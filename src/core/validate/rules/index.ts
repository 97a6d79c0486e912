// The CRD CEL rules (and the core kinds' own checks) by component schema name.
import type { FieldError } from '../types';
import type { Obj } from '../cel';
import { configMapRules, endpointSliceRules, secretRules, serviceRules } from './core';
import { gatewayRules, listenerSetRules } from './gateway';
import { gatewayClassRules } from './gatewayclass';
import { grpcRouteRules } from './grpcroute';
import { httpRouteRules } from './httproute';
import { l4RouteRules } from './l4routes';
import { backendTLSPolicyRules } from './backendtlspolicy';

type RuleSet = (obj: Obj, errors: FieldError[], old?: Obj) => void;

export const RULES: Record<string, RuleSet> = {
  GatewayClass: gatewayClassRules,
  Gateway: gatewayRules,
  HTTPRoute: httpRouteRules,
  GRPCRoute: grpcRouteRules,
  TLSRoute: (o, e) => l4RouteRules(o, e, { ruleNames: false, tlsHostnames: true }),
  TLSRouteV1alpha2: (o, e) => l4RouteRules(o, e, { ruleNames: true, tlsHostnames: false }),
  TCPRoute: (o, e) => l4RouteRules(o, e, { ruleNames: false, tlsHostnames: false }),
  TCPRouteV1alpha2: (o, e) => l4RouteRules(o, e, { ruleNames: true, tlsHostnames: false }),
  UDPRoute: (o, e) => l4RouteRules(o, e, { ruleNames: false, tlsHostnames: false }),
  UDPRouteV1alpha2: (o, e) => l4RouteRules(o, e, { ruleNames: true, tlsHostnames: false }),
  ReferenceGrant: () => {},
  BackendTLSPolicy: backendTLSPolicyRules,
  ListenerSet: listenerSetRules,
  Namespace: () => {},
  Service: serviceRules,
  EndpointSlice: endpointSliceRules,
  Secret: secretRules,
  ConfigMap: configMapRules,
};

/** Core kinds: their checks are not CEL and are not suppressed by blocking schema errors. */
export const CORE_SCHEMAS = new Set(['Namespace', 'Service', 'EndpointSlice', 'Secret', 'ConfigMap']);
