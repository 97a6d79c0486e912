// The features the mesh claims, as upstream's XMesh reports them in status.supportedFeatures
// (upstream's names). Kept apart from the GatewayClass's list: a Gateway feature is not a mesh
// feature, and the mesh conformance profile reads this list alone. Each is claimed only once every
// mesh conformance case that needs it passes (test/unit/mesh-conformance.test.ts).
export const MESH_FEATURES: readonly string[] = Object.freeze([
  'GRPCRoute',
  'HTTPRoute',
  'HTTPRoute303RedirectStatusCode',
  'HTTPRoute307RedirectStatusCode',
  'HTTPRoute308RedirectStatusCode',
  'HTTPRouteParentRefPort',
  'HTTPRouteResponseHeaderModification',
  'Mesh',
  'MeshClusterIPMatching',
  'MeshConsumerRoute',
  'MeshHTTPRouteBackendRequestHeaderModification',
  'MeshHTTPRouteNamedRouteRule',
  'MeshHTTPRouteQueryParamMatching',
  'MeshHTTPRouteRedirectPath',
  'MeshHTTPRouteRedirectPort',
  'MeshHTTPRouteRewritePath',
  'MeshHTTPRouteSchemeRedirect',
].sort());

/** status.supportedFeatures as an XMesh carries it: sorted by name. */
export function meshSupportedFeatures(features: readonly string[] = MESH_FEATURES): { name: string }[] {
  return [...new Set(features)].sort().map((name) => ({ name }));
}
