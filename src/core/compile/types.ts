// Named aliases of the compiled-table shapes generated from openapi/schemas/snapshot.yaml.
import type { components } from '../../generated/api';

type S = components['schemas'];
export type CompiledTable = S['CompiledTable'];
export type CompiledGatewayRef = S['CompiledGatewayRef'];
export type CompiledObjectRef = S['CompiledObjectRef'];
export type CompiledListener = S['CompiledListener'];
export type CompiledListenerTLS = S['CompiledListenerTLS'];
export type CompiledRoute = S['CompiledRoute'];
export type CompiledRule = S['CompiledRule'];
export type CompiledProblem = S['CompiledProblem'];
export type CompiledBackend = S['CompiledBackend'];
export type CompiledEndpoint = S['CompiledEndpoint'];
export type CompiledTimeouts = S['CompiledTimeouts'];
export type CompiledRetry = S['CompiledRetry'];
export type CompiledSessionPersistence = S['CompiledSessionPersistence'];
export type CompiledBackendTLS = S['CompiledBackendTLS'];
export type CompiledFilter = S['CompiledFilter'];
export type CompiledHeaderModifier = S['CompiledHeaderModifier'];
export type CompiledPathModifier = S['CompiledPathModifier'];
export type CompiledRedirect = S['CompiledRedirect'];
export type CompiledURLRewrite = S['CompiledURLRewrite'];
export type CompiledMirror = S['CompiledMirror'];
export type CompiledCORS = S['CompiledCORS'];
export type CompiledExternalAuth = S['CompiledExternalAuth'];
export type CompiledValueMatch = S['CompiledValueMatch'];
export type CompiledHTTPMatch = S['CompiledHTTPMatch'];
export type CompiledGRPCMatch = S['CompiledGRPCMatch'];
export type CompiledHTTPEntry = S['CompiledHTTPEntry'];
export type CompiledGRPCEntry = S['CompiledGRPCEntry'];
export type CompiledSNIEntry = S['CompiledSNIEntry'];
export type CompiledStreamEntry = S['CompiledStreamEntry'];
export type CompiledUnattachedRoute = S['CompiledUnattachedRoute'];
export type Snapshot = S['Snapshot'];
export type SnapshotSecret = S['SnapshotSecret'];

export type RouteKindName = CompiledRoute['kind'];
export const TABLE_FORMAT = 'switchyard.dev/compiled-table/v1' as const;
