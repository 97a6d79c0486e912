// What a map of written status parts holds, and what a translation's route entries changed from
// the translation before them, known without comparing every route: a Gateway of 50,000 routes
// has 50,000 entries, and a one-route change changes one. The map of what a recompute wrote is
// noted as made from a translation's entries (every entry the very object that translation made,
// nothing else), and a translation merged from route changes notes which streams' entries it
// changed; the next translation and the next diff then look at those alone.
import type { ReadList } from '../model/chunked-list';

/** A route's status.parents entries for one Gateway, as the diff reads them (status/route.ts RouteParents). */
export interface RouteEntries { kind: string; namespace: string; name: string; parents: unknown[] }
/** every route's entries, as a translation gives them */
export type RouteEntriesList = ReadList<RouteEntries>;

const WRITTEN = new WeakMap<object, RouteEntriesList>();

/** `parts` holds, by stream, exactly a `{ parents }` of each entry of `routeParents`, and nothing else. */
export function noteWrittenParts(parts: ReadonlyMap<string, unknown>, routeParents: RouteEntriesList): void {
  WRITTEN.set(parts, routeParents);
}

/** The route entries `parts` was noted as made from, if it was. */
export function writtenFrom(parts: ReadonlyMap<string, unknown>): RouteEntriesList | undefined {
  return WRITTEN.get(parts);
}

/** The entries of a translation against those of the one before: by stream, each that may differ (undefined: gone); every other is the same object. */
export interface RouteParentsChange {
  previous: RouteEntriesList;
  entries: ReadonlyMap<string, RouteEntries | undefined>;
}

const CHANGES = new WeakMap<RouteEntriesList, RouteParentsChange>();

export function noteRouteParentsChange(next: RouteEntriesList, change: RouteParentsChange): void {
  // what the one before changed from is not asked for again: were it kept, every translation
  // would keep the one before it alive
  CHANGES.delete(change.previous);
  CHANGES.set(next, change);
}

export function routeParentsChange(next: RouteEntriesList): RouteParentsChange | undefined {
  return CHANGES.get(next);
}
