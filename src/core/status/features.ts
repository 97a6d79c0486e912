// The features Switchyard claims in GatewayClass status.supportedFeatures (upstream's names): at least
// the list of the contract's "Delivery to proxies" section, and each further one only once every
// conformance case that needs it passes. Defined once; the conformance runner and
// the listener rules (which kinds and TLS modes a listener may carry) read it from here.

export const SUPPORTED_FEATURES: readonly string[] = Object.freeze([
  'BackendTLSPolicy',
  'BackendTLSPolicySANValidation',
  // upcoming (open upstream pull requests, test/corpora/conformance/upcoming): #4954's cookie
  // sessions, and the names #5183 and #5162 give HTTPRouteRetry and GatewayInfrastructurePropagation
  // (both old names stay claimed while the released suite uses them)
  'CookieSessionPersistence',
  // #5113: the ExternalAuth filter, with HTTP and Envoy ext_authz gRPC servers, and forwardBody
  'HTTPRouteExternalAuth',
  'HTTPRouteExternalAuthForwardBody',
  'HTTPRouteExternalAuthGRPC',
  'HTTPRouteExternalAuthHTTP',
  'CookieSessionPersistencePermanentLifetime',
  'GatewayInfrastructure',
  // #4523: a route or ListenerSet changed under traffic fails no request (the proxy swaps tables whole)
  'GatewayNonDisruptiveConfig',
  'HTTPRouteRetryCodes',
  'GatewayBackendClientCertificate',
  'GatewayFrontendClientCertificateValidationInsecureFallback',
  'HTTPRouteBackendProtocolH2C',
  'HTTPRouteBackendProtocolWebSocket',
  'HTTPRouteRequestPercentageMirror',
  'HTTPRouteRetry',
  'HTTPRouteRetryBackendTimeout',
  'HTTPRouteRetryConnectionError',
  'GRPCRoute',
  'GRPCRouteNamedRouteRule',
  'GRPCRouteRequestHeaderModifier',
  'Gateway',
  'GatewayAddressEmpty',
  'GatewayFrontendClientCertificateValidation',
  'GatewayHTTPListenerIsolation',
  'GatewayHTTPSListenerDetectMisdirectedRequests',
  'GatewayInfrastructurePropagation',
  'GatewayPort8080',
  'GatewayStaticAddresses',
  'HTTPRoute',
  'HTTPRoute303RedirectStatusCode',
  'HTTPRoute307RedirectStatusCode',
  'HTTPRoute308RedirectStatusCode',
  'HTTPRouteBackendRequestHeaderModification',
  'HTTPRouteBackendRequestRedirect',
  'HTTPRouteBackendTimeout',
  'HTTPRouteBackendURLRewrite',
  'HTTPRouteCORS',
  'HTTPRouteDestinationPortMatching',
  'HTTPRouteHostRewrite',
  'HTTPRouteMethodMatching',
  'HTTPRouteNamedRouteRule',
  'HTTPRouteParentRefPort',
  'HTTPRoutePathRedirect',
  'HTTPRoutePathRewrite',
  'HTTPRoutePortRedirect',
  'HTTPRouteQueryParamMatching',
  'HTTPRouteRequestMirror',
  'HTTPRouteRequestMultipleMirrors',
  'HTTPRouteRequestTimeout',
  'HTTPRouteResponseHeaderModification',
  'HTTPRouteSchemeRedirect',
  'ListenerSet',
  'ReferenceGrant',
  'TCPRoute',
  'TLSRoute',
  'TLSRouteModeMixed',
  'TLSRouteModeTerminate',
  'UDPRoute',
].sort());

/** status.supportedFeatures as the GatewayClass carries it: sorted by name (the spec requires it). */
export function supportedFeaturesStatus(features: readonly string[] = SUPPORTED_FEATURES): { name: string }[] {
  return [...new Set(features)].sort().map((name) => ({ name }));
}

export function featureSet(features?: readonly string[]): ReadonlySet<string> {
  return new Set(features ?? SUPPORTED_FEATURES);
}
