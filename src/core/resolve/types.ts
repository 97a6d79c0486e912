// Named aliases of the resolve shapes generated from openapi/schemas/resolve.yaml.
import type { components } from '../../generated/api';

type S = components['schemas'];
export type ResolveRequest = S['ResolveRequest'];
export type ResolveResponse = S['ResolveResponse'];
export type ResolveRouteRef = S['ResolveRouteRef'];
export type ResolveBackend = S['ResolveBackend'];
export type ResolveRedirect = S['ResolveRedirect'];
export type ResolveRewrite = S['ResolveRewrite'];
export type ResolveMirror = S['ResolveMirror'];
export type ResolveCandidate = S['ResolveCandidate'];
export type ResolveUnattached = S['ResolveUnattached'];
export type ResolveDecisionStep = S['ResolveDecisionStep'];
