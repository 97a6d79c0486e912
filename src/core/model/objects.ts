// Named aliases of the object types generated from openapi/ (src/generated/api.ts).
// Stored objects are defaulted (src/core/validate), so fields with a CRD default are typed as present.
import type { components } from '../../generated/api';

type S = components['schemas'];

export type ObjectMeta = S['ObjectMeta'];
export type OwnerReference = S['OwnerReference'];
export type Condition = S['Condition'];

/** Any stored object, whatever its kind: the shape the store and the generic code paths handle. */
export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
  // any: the generic paths (store, merge patch, apply) handle every kind's fields without knowing them
  /* eslint-disable @typescript-eslint/no-explicit-any */
  spec?: any;
  status?: any;
  [extra: string]: any;
  /* eslint-enable @typescript-eslint/no-explicit-any */
}

// GatewayClass
export type GatewayClass = S['GatewayClass'];
export type GatewayClassSpec = S['GatewayClassSpec'];
export type GatewayClassStatus = S['GatewayClassStatus'];
export type ParametersReference = S['ParametersReference'];

// Gateway
export type Gateway = S['Gateway'];
export type GatewaySpec = S['GatewaySpec'];
export type GatewayStatus = S['GatewayStatus'];
export type Listener = S['Listener'];
export type ListenerStatus = S['ListenerStatus'];
export type ListenerTLSConfig = S['ListenerTLSConfig'];
export type AllowedRoutes = S['AllowedRoutes'];
export type RouteNamespaces = S['RouteNamespaces'];
export type RouteGroupKind = S['RouteGroupKind'];
export type GatewaySpecAddress = S['GatewaySpecAddress'];
export type GatewayStatusAddress = S['GatewayStatusAddress'];
export type GatewayTLSConfig = S['GatewayTLSConfig'];
export type TLSConfig = S['TLSConfig'];
export type LabelSelector = S['LabelSelector'];

// References and route status shared by the route kinds
export type ParentReference = S['ParentReference'];
export type BackendRef = S['BackendRef'];
export type BackendObjectReference = S['BackendObjectReference'];
export type SecretObjectReference = S['SecretObjectReference'];
export type ObjectReference = S['ObjectReference'];
export type LocalObjectReference = S['LocalObjectReference'];
export type RouteParentStatus = S['RouteParentStatus'];
export type RouteStatus = S['RouteStatus'];

// HTTPRoute
export type HTTPRoute = S['HTTPRoute'];
export type HTTPRouteSpec = S['HTTPRouteSpec'];
export type HTTPRouteRule = S['HTTPRouteRule'];
export type HTTPRouteMatch = S['HTTPRouteMatch'];
export type HTTPPathMatch = S['HTTPPathMatch'];
export type HTTPHeaderMatch = S['HTTPHeaderMatch'];
export type HTTPQueryParamMatch = S['HTTPQueryParamMatch'];
export type HTTPRouteFilter = S['HTTPRouteFilter'];
export type HTTPHeaderFilter = S['HTTPHeaderFilter'];
export type HTTPHeader = S['HTTPHeader'];
export type HTTPPathModifier = S['HTTPPathModifier'];
export type HTTPRequestRedirectFilter = S['HTTPRequestRedirectFilter'];
export type HTTPURLRewriteFilter = S['HTTPURLRewriteFilter'];
export type HTTPRequestMirrorFilter = S['HTTPRequestMirrorFilter'];
export type HTTPCORSFilter = S['HTTPCORSFilter'];
export type HTTPExternalAuthFilter = S['HTTPExternalAuthFilter'];
export type HTTPBackendRef = S['HTTPBackendRef'];
export type HTTPRouteTimeouts = S['HTTPRouteTimeouts'];
export type HTTPRouteRetry = S['HTTPRouteRetry'];
export type SessionPersistence = S['SessionPersistence'];

// GRPCRoute
export type GRPCRoute = S['GRPCRoute'];
export type GRPCRouteSpec = S['GRPCRouteSpec'];
export type GRPCRouteRule = S['GRPCRouteRule'];
export type GRPCRouteMatch = S['GRPCRouteMatch'];
export type GRPCMethodMatch = S['GRPCMethodMatch'];
export type GRPCHeaderMatch = S['GRPCHeaderMatch'];
export type GRPCRouteFilter = S['GRPCRouteFilter'];
export type GRPCBackendRef = S['GRPCBackendRef'];

// TLSRoute, TCPRoute, UDPRoute: every served version (tell them apart by apiVersion)
export type TLSRouteV1 = S['TLSRoute']; // v1 and v1alpha3
export type TLSRouteV1alpha2 = S['TLSRouteV1alpha2'];
export type TLSRoute = TLSRouteV1 | TLSRouteV1alpha2;
export type TLSRouteRule = S['TLSRouteRule'];
export type TCPRouteV1 = S['TCPRoute'];
export type TCPRouteV1alpha2 = S['TCPRouteV1alpha2'];
export type TCPRoute = TCPRouteV1 | TCPRouteV1alpha2;
export type TCPRouteRule = S['TCPRouteRule'];
export type UDPRouteV1 = S['UDPRoute'];
export type UDPRouteV1alpha2 = S['UDPRouteV1alpha2'];
export type UDPRoute = UDPRouteV1 | UDPRouteV1alpha2;
export type UDPRouteRule = S['UDPRouteRule'];

/** Every route kind and version; tell them apart by `kind` (and `apiVersion`). */
export type Route = HTTPRoute | GRPCRoute | TLSRoute | TCPRoute | UDPRoute;

// ReferenceGrant
export type ReferenceGrant = S['ReferenceGrant'];
export type ReferenceGrantFrom = S['ReferenceGrantFrom'];
export type ReferenceGrantTo = S['ReferenceGrantTo'];

// BackendTLSPolicy (v1 and v1alpha3 share one schema)
export type BackendTLSPolicy = S['BackendTLSPolicy'];
export type BackendTLSPolicySpec = S['BackendTLSPolicySpec'];
export type BackendTLSPolicyValidation = S['BackendTLSPolicyValidation'];
export type LocalPolicyTargetReferenceWithSectionName = S['LocalPolicyTargetReferenceWithSectionName'];
export type SubjectAltName = S['SubjectAltName'];
export type PolicyStatus = S['PolicyStatus'];
export type PolicyAncestorStatus = S['PolicyAncestorStatus'];
// ListenerSet
export type ListenerSet = S['ListenerSet'];
export type ListenerSetSpec = S['ListenerSetSpec'];
export type ListenerSetStatus = S['ListenerSetStatus'];
export type ParentGatewayReference = S['ParentGatewayReference'];

// Core kinds
export type Namespace = S['Namespace'];
export type Service = S['Service'];
export type ServiceSpec = S['ServiceSpec'];
export type ServicePort = S['ServicePort'];
export type EndpointSlice = S['EndpointSlice'];
export type Endpoint = S['Endpoint'];
export type EndpointPort = S['EndpointPort'];
export type Secret = S['Secret'];
export type ConfigMap = S['ConfigMap'];
