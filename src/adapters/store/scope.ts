// Keys in shared tables (checkpoints, wants, recomputes, dependencies, status parts) carry the
// controller's name: several controllers may share one store.
export function scoped(scope: string, key: string): string {
  return `${scope}|${key}`;
}

const DISPATCH_CHECKPOINT = 'dispatcher';

/** The name of a controller's dispatcher checkpoint; `%` matches every controller's in a LIKE. */
export function dispatchCheckpoint(scope: string): string {
  return `${DISPATCH_CHECKPOINT}|${scope}`;
}
