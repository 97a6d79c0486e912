// A compiled table as parts with stable identities (openapi/schemas/snapshot-delta.yaml): the
// routes, rules, listeners and each listener's entry lists, keyed so that a change to one route
// changes only that route's parts. Indices are replaced by ids (a rule's route, an entry's rule), so
// that adding a route before others moves no other part. Each item is kept with its JSON text,
// which is what a delta compares; `tableOfParts` rebuilds the table JSON.stringify writes byte for
// byte as compile wrote it (every object keeps its members in their order).
import type { CompiledListener, CompiledTable } from '../compile/types';

export const ENTRY_LISTS = ['httpRoutes', 'grpcRoutes', 'tlsRoutes', 'tcpRoutes', 'udpRoutes'] as const;
export type EntryList = (typeof ENTRY_LISTS)[number];

/** A part of the table: the object, and its JSON text (made once, compared by diffs). */
export interface Part {
  item: Record<string, unknown>;
  text: string;
  /** what the item was made from, when its maker says (see PartSources): the same source, the same text */
  src?: object;
  /** the sha256 of `text`, once made (see table-hash) */
  digest?: string;
}

/**
 * Where a table's items come from, for a caller that keeps the compile's memory (the worker): an
 * item made from the same source object as the previous version's part of the same id is that
 * part, and is not serialized again, so the parts of a table cost in proportion to what changed.
 * A source must determine the item together with its id.
 */
export interface PartSources {
  rule(rule: CompiledTable['rules'][number]): object | undefined;
  /**
   * The ids the table's routes, rules and entries get here (before repeats are told apart), when
   * its maker kept them: the same strings as made here, without making them again.
   */
  ids?(table: CompiledTable): TableIds | undefined;
}

/** Ids by position: routes, rules, and per listener its entry lists in ENTRY_LISTS order. */
export interface TableIds {
  routes: string[];
  rules: string[];
  entries: string[][][];
}

/** An entry is its id (rule id, matchIndex, hostname) and its match; an entry without a match is its id alone. */
const ID_ALONE = {};

/** An ordered list of parts with unique ids. */
export interface PartList {
  ids: string[];
  parts: Map<string, Part>;
}

export interface TableParts {
  /** the table's other members, with listeners, routes and rules as empty lists holding their places */
  head: Part;
  listeners: PartList;
  routes: PartList;
  rules: PartList;
  /** by entriesKey(listener id, list) */
  entries: Map<string, PartList>;
}

export const entriesKey = (listener: string, list: EntryList): string => `${listener}\u0000${list}`;

/** Every part has the same members in the same order (one object shape: a table has tens of thousands). */
function made(item: Record<string, unknown>, text: string, src: object | undefined, digest: string | undefined): Part {
  return { item, text, src, digest };
}

export function part(item: Record<string, unknown>): Part {
  return made(item, JSON.stringify(item), undefined, undefined);
}

export function emptyList(): PartList {
  return { ids: [], parts: new Map() };
}

/** Ids unique within a list: a repeated one gets "|~2", "|~3" ... in list order (repeats are rare: only they are counted). */
function uniqueId(list: PartList, seen: Map<string, number>, id: string): string {
  if (!list.parts.has(id)) return id;
  let n = seen.get(id) ?? 1;
  let uid;
  do uid = `${id}|~${++n}`; while (list.parts.has(uid));
  seen.set(id, n);
  return uid;
}

/**
 * Adds part `id` to the list: the previous version's part when it was made from the same `src`,
 * else `make(a, b)` (a function of the module, not a closure per item: a table has tens of
 * thousands of parts).
 */
function push<A, B>(
  list: PartList, seen: Map<string, number>, id: string, reuse: PartList | undefined, src: object | undefined,
  make: (a: A, b: B) => Record<string, unknown>, a: A, b: B,
): void {
  const uid = uniqueId(list, seen, id);
  const prev = reuse?.parts.get(uid);
  list.ids.push(uid);
  if (src !== undefined && prev?.src === src) return void list.parts.set(uid, prev);
  const item = make(a, b);
  const text = JSON.stringify(item);
  // the previous version's text is kept when equal, so that versions held side by side share it
  list.parts.set(uid, prev && prev.text === text ? (src === undefined || prev.src === src ? prev : made(prev.item, prev.text, src, prev.digest)) : made(item, text, src, undefined));
}

const itself = (o: object): Record<string, unknown> => o as Record<string, unknown>;
const withRoute = (r: object, route: string): Record<string, unknown> => ({ ...r, route });
const withRule = (e: object, rule: string): Record<string, unknown> => ({ ...e, rule });

export const routeId = (r: { kind: string; namespace: string; name: string }): string => `${r.kind}/${r.namespace}/${r.name}`;
export const ruleId = (route: string, index: number): string => `${route}#${index}`;
const entryId = (rule: string, e: { matchIndex?: number; hostname?: string }): string =>
  `${rule}|${e.matchIndex ?? ''}|${e.hostname ?? ''}`;

/**
 * The parts of a table. `previous` (the parts of an earlier version) only lets equal parts share
 * their text; the answer is the same without it.
 */
export function tableParts(table: CompiledTable, previous?: TableParts, sources?: PartSources): TableParts {
  // the maker's ids hold while no id repeats (a repeat's id is told apart here, and so are the ids made from it)
  let known = sources?.ids?.(table);
  const routes = emptyList();
  const routeSeen = new Map<string, number>();
  // a route's item is the compile's own object, kept while the route is unchanged
  table.routes.forEach((r, i) => push(routes, routeSeen, known?.routes[i] ?? routeId(r), previous?.routes, sources && r, itself, r, undefined));
  if (routeSeen.size) known = undefined;
  const rules = emptyList();
  const ruleSeen = new Map<string, number>();
  const ruleIds: string[] = [];
  for (let i = 0; i < table.rules.length; i++) {
    const r = table.rules[i];
    const rid = routes.ids[r.route];
    if (rid === undefined) throw new Error(`rule ${r.index} names route ${r.route}, which the table does not hold`);
    const before = rules.ids.length;
    push(rules, ruleSeen, known?.rules[i] ?? ruleId(rid, r.index), previous?.rules, sources?.rule(r), withRoute, r, rid);
    ruleIds.push(rules.ids[before]);
  }
  if (ruleSeen.size) known = undefined;
  const listeners = emptyList();
  const listenerSeen = new Map<string, number>();
  const entries = new Map<string, PartList>();
  table.listeners.forEach((l, li) => {
    const head: Record<string, unknown> = { ...l };
    for (const list of ENTRY_LISTS) if (head[list] !== undefined) head[list] = [];
    const before = listeners.ids.length;
    push(listeners, listenerSeen, l.name, previous?.listeners, undefined, itself, head, undefined);
    const lid = listeners.ids[before];
    ENTRY_LISTS.forEach((list, k) => {
      const items = l[list] as { rule: number; matchIndex?: number; hostname?: string; match?: object }[] | undefined;
      if (!items) return;
      const given = known?.entries[li]?.[k];
      const key = entriesKey(lid, list);
      const out = emptyList();
      const seen = new Map<string, number>();
      items.forEach((e, i) => {
        const rid = ruleIds[e.rule];
        if (rid === undefined) throw new Error(`an entry of listener ${l.name} names rule ${e.rule}, which the table does not hold`);
        push(out, seen, given?.[i] ?? entryId(rid, e), previous?.entries.get(key), sources && (e.match ?? ID_ALONE), withRule, e, rid);
      });
      entries.set(key, out);
    });
  });
  const head: Record<string, unknown> = { ...table, listeners: [], routes: [], rules: [] };
  const prevHead = previous?.head;
  const h = part(head);
  return { head: prevHead && prevHead.text === h.text ? prevHead : h, listeners, routes, rules, entries };
}

/** The table the parts stand for, indices rebuilt; JSON.stringify of it is the compiled table's text. */
export function tableOfParts(p: TableParts): CompiledTable {
  const routeIndex = new Map(p.routes.ids.map((id, i) => [id, i]));
  const ruleIndex = new Map(p.rules.ids.map((id, i) => [id, i]));
  const index = (m: Map<string, number>, id: unknown, what: string): number => {
    const i = m.get(id as string);
    if (i === undefined) throw new Error(`the table names ${what} ${String(id)}, which it does not hold`);
    return i;
  };
  const listeners = p.listeners.ids.map((lid) => {
    const l: Record<string, unknown> = { ...p.listeners.parts.get(lid)!.item };
    for (const list of ENTRY_LISTS) {
      if (l[list] === undefined) continue;
      const es = p.entries.get(entriesKey(lid, list)) ?? emptyList();
      l[list] = es.ids.map((id) => {
        const e = es.parts.get(id)!.item;
        return { ...e, rule: index(ruleIndex, e.rule, 'rule') };
      });
    }
    return l as unknown as CompiledListener;
  });
  return {
    ...(p.head.item as unknown as CompiledTable),
    listeners,
    routes: p.routes.ids.map((id) => p.routes.parts.get(id)!.item) as never,
    rules: p.rules.ids.map((id) => {
      const r = p.rules.parts.get(id)!.item;
      return { ...r, route: index(routeIndex, r.route, 'route') };
    }) as never,
  };
}
