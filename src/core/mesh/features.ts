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

/**
 * The mesh as upstream's XMesh (gateway.networking.x-k8s.io/v1alpha1) reports itself: one object
 * per controller, Accepted, with the features it supports. Switchyard serves one mesh per
 * controller, so the object is made from the controller's name, not stored.
 */
export function xMeshOf(name: string, controllerName: string, features: readonly string[] = MESH_FEATURES) {
  return {
    apiVersion: 'gateway.networking.x-k8s.io/v1alpha1',
    kind: 'XMesh',
    metadata: { name },
    spec: { controllerName },
    status: {
      conditions: [
        { type: 'Accepted', status: 'True', reason: 'Accepted', message: 'The mesh is served by this controller', lastTransitionTime: '1970-01-01T00:00:00Z' },
        { type: 'Programmed', status: 'True', reason: 'Programmed', message: 'Mesh tables are compiled per client namespace', lastTransitionTime: '1970-01-01T00:00:00Z' },
      ],
      supportedFeatures: meshSupportedFeatures(features),
    },
  };
}
