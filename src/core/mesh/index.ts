export * from './types';
export { compileMesh, governing, meshBackendResolver, portListenerName, serviceBackend, type MeshCompileOptions } from './compile-mesh';
export { clusterIPsOf, CONFLICTED, isServiceParent, meshParentOutcomes, MESH_KIND_ORDER, servicesNamedBy, type MeshParentOutcome } from './parents';
export { byName, findService, findTarget, isIP, portOf, splitAuthority, type MeshTarget } from './lookup';
export { decideMesh, portTable, resolveMesh } from './resolve-mesh';
export { MESH_FEATURES, meshSupportedFeatures, xMeshOf } from './features';
export { meshRefs, meshRouteParents, type MeshRouteParents } from './status';
export { meshSnapshotBody } from './snapshot';
