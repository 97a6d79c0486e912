export * from './types';
export { compileMesh, governing, meshBackendResolver, portListenerName, serviceBackend, type MeshCompileOptions } from './compile-mesh';
export { clusterIPsOf, CONFLICTED, isServiceParent, meshParentOutcomes, MESH_KIND_ORDER, servicesNamedBy, type MeshParentOutcome } from './parents';
