// The translation boundary for a new table version: (the previous version's translations, the table
// delta that leads from it) -> the translations still valid. The worker already says what changed
// (the snapshot delta the SSE watchers are sent); a one-route change then retranslates only the
// listener names that route reaches, and every other resource stays the same object, so it is not
// encoded, hashed or sent again. Without a delta (a gap, a restart), nothing carries over.
import type { SnapshotDelta } from '../snapshot/delta';
import { hostnameMatches } from '../match/hostname';
import { parseListenerName } from './names';

/** What a chain of deltas touched, as far as a translation by listener name can tell. */
export interface DeltaScope {
  /** the listeners or the table's head changed: every name is retranslated */
  all: boolean;
  /** the hostnames of entries added, removed or replaced in the lists the translation reads */
  hosts: Set<string>;
  /** the routes ("<kind>/<namespace>/<name>") whose route, rules or entries changed */
  routes: Set<string>;
}

// ids as the table's parts name them (core/snapshot/table-parts): a route "<kind>/<ns>/<name>", a
// rule "<route>#<index>", an entry "<rule>|<matchIndex>|<hostname>"
const routeOfRule = (id: string) => id.slice(0, id.lastIndexOf('#'));
const routeOfEntry = (id: string) => routeOfRule(id.slice(0, id.indexOf('|')));
const hostOfEntry = (id: string) => id.slice(id.lastIndexOf('|') + 1);

export function deltaScope(deltas: readonly Pick<SnapshotDelta, 'head' | 'changes'>[], entryLists: readonly string[]): DeltaScope {
  const scope: DeltaScope = { all: false, hosts: new Set(), routes: new Set() };
  for (const d of deltas) {
    if (d.head) scope.all = true;
    for (const c of d.changes) {
      const ids = [...c.removed, ...c.added.map((a) => a.id), ...c.replaced.map((r) => r.id)];
      if (c.collection === 'listeners') scope.all = ids.length > 0 || scope.all;
      else if (c.collection === 'routes') for (const id of ids) scope.routes.add(id);
      else if (c.collection === 'rules') for (const id of ids) scope.routes.add(routeOfRule(id));
      else if (c.collection === 'entries' && entryLists.includes(c.list ?? '')) {
        for (const id of ids) {
          scope.hosts.add(hostOfEntry(id));
          scope.routes.add(routeOfEntry(id));
        }
      }
    }
  }
  return scope;
}

/** Whether listener `name`, translated reading `routes`, may translate differently after the scope's changes. */
export function touched(scope: DeltaScope, name: string, routes: readonly string[] | undefined): boolean {
  if (scope.all) return true;
  // a name the table had no listener for stays without one unless the listeners change
  if (!routes) return false;
  const target = parseListenerName(name);
  if (!target) return false;
  for (const h of scope.hosts) if (hostnameMatches(h, target.host)) return true;
  return routes.some((r) => scope.routes.has(r));
}

/** The translations of `previous` the deltas leave valid (the same objects), by listener name. */
export function carryOver<T extends { routes: readonly string[] } | null>(previous: ReadonlyMap<string, T>, scope: DeltaScope): Map<string, T> {
  const out = new Map<string, T>();
  for (const [name, t] of previous) if (!touched(scope, name, t?.routes)) out.set(name, t);
  return out;
}
