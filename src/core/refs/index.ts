export { resolveBackendRef } from './backends';
export { routeRefs } from './route-refs';
export { resolveReferences, refsOf } from './resolution';
export type { ResolvedReferences } from './resolution';
export { referenceAllowed } from './grants';
export { tlsSecretProblem } from './certificates';
export { resolveCaRef } from './ca';
export { viewOf } from './lookup';
export type { WorldView } from './lookup';
