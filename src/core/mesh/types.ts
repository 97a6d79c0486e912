// Named aliases of the mesh table shapes generated from openapi/schemas/mesh.yaml. This is the
// seam other data planes build on (the reference proxy's --mesh role, Linkerd's destination and
// outbound-policy APIs): one table per client namespace, per Service port the routes that govern
// it in precedence order, with backends, weights, endpoints, timeouts and retries.
import type { components } from '../../generated/api';

type S = components['schemas'];
export type MeshTable = S['MeshTable'];
export type MeshService = S['MeshService'];
export type MeshServicePort = S['MeshServicePort'];
export type MeshSnapshot = S['MeshSnapshot'];
export type MeshResolveRequest = S['MeshResolveRequest'];

export type MeshRouteKind = NonNullable<MeshServicePort['routeKind']>;
export const MESH_TABLE_FORMAT = 'switchyard.dev/mesh-table/v1' as const;
export const DEFAULT_CLUSTER_DOMAIN = 'cluster.local';
