// A compiled table as parts with stable identities (openapi/schemas/snapshot-delta.yaml): the
// routes, rules, listeners and each listener's entry lists, keyed so that a change to one route
// changes only that route's parts. Indices are replaced by ids (a rule's route, an entry's rule), so
// that adding a route before others moves no other part. Each item is kept with its JSON text,
// which is what a delta compares; `tableOfParts` rebuilds the table JSON.stringify writes byte for
// byte as compile wrote it (every object keeps its members in their order).
import type { CompiledListener, CompiledTable } from '../compile/types';
import { ChunkedList } from '../model/chunked-list';
import { flatText } from '../model/flat-text';
import { arrayElements, objectMembers, setMember } from '../model/json-slices';

export const ENTRY_LISTS = ['httpRoutes', 'grpcRoutes', 'tlsRoutes', 'tcpRoutes', 'udpRoutes'] as const;
export type EntryList = (typeof ENTRY_LISTS)[number];

/** A part of the table: the object, and its JSON text (made once, compared by diffs). */
export interface Part {
  item: Record<string, unknown>;
  text: string;
  /**
   * where the id a rule's or an entry's text names starts in it, once looked for (see
   * table-text): kept with the part, as a table has a part a route and rule and match
   */
  cut?: number;
}

/** An ordered list of parts with unique ids. */
export interface PartList {
  ids: string[];
  parts: Map<string, Part>;
}

/**
 * A list whose ids are held in chunks (../model/chunked-list), as a merge of a few changed routes
 * makes it from the list before (translate/route-changes.ts): the next version shares every chunk
 * its edits did not touch. Its `ids` array is made when first read, for readers of the whole list
 * (the whole table's text); what reads it per version uses idCount, idAt, idPositions and idsOf.
 */
export class ChunkedPartList implements PartList {
  private array: string[] | undefined;
  private held: ChunkedList<string>;

  constructor(chunked: ChunkedList<string>, public parts: Map<string, Part>) {
    this.held = chunked;
  }

  get chunked(): ChunkedList<string> {
    return this.held;
  }

  set chunked(c: ChunkedList<string>) {
    this.held = c;
    this.array = undefined;
  }

  get ids(): string[] {
    return (this.array ??= this.held.toArray());
  }
}

export const idCount = (l: PartList): number => (l instanceof ChunkedPartList ? l.chunked.length : l.ids.length);
export const idAt = (l: PartList, i: number): string | undefined => (l instanceof ChunkedPartList ? l.chunked.at(i) : l.ids[i]);
/** Into `out`, the positions in [from, to) of the ids of `wanted` that `l` holds there. */
export function idPositions(l: PartList, wanted: ReadonlySet<string>, out = new Map<string, number>(), from = 0, to = Infinity): Map<string, number> {
  if (l instanceof ChunkedPartList) return l.chunked.positionsOf(wanted, out, from, Math.min(to, l.chunked.length));
  const ids = l.ids;
  for (let i = Math.max(0, from), end = Math.min(to, ids.length); i < end; i++) if (wanted.has(ids[i])) out.set(ids[i], i);
  return out;
}
/** The ids in order, without making an array of a chunked list. */
export const idsOf = (l: PartList): Iterable<string> => (l instanceof ChunkedPartList ? l.chunked : l.ids);

// a list's ids in chunks, made once per list that is not chunked already (the first merge after a
// whole translation); later versions share the chunks
const CHUNKED = new WeakMap<PartList, ChunkedList<string>>();

/** The ids of `l` as a chunked list. */
export function chunkedIds(l: PartList): ChunkedList<string> {
  if (l instanceof ChunkedPartList) return l.chunked;
  let c = CHUNKED.get(l);
  if (!c || c.length !== l.ids.length) CHUNKED.set(l, (c = ChunkedList.from(l.ids)));
  return c;
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
export function part(item: Record<string, unknown>): Part {
  return { item, text: flatText(JSON.stringify(item)), cut: undefined };
}

/**
 * A part kept as its text alone, its item parsed again whenever it is read. For a reader that holds
 * a table to apply deltas to and to join its text from (the API): the objects of a table of 50,000
 * routes take some three times the memory of their text, and such a reader reads the items of few
 * parts (the head, the listeners, the parts a delta of its own names).
 */
class TextPart implements Part {
  cut: number | undefined = undefined;
  constructor(readonly text: string) {}

  get item(): Record<string, unknown> {
    return JSON.parse(this.text) as Record<string, unknown>;
  }
}

export function textPart(item: Record<string, unknown>): Part {
  return new TextPart(flatText(JSON.stringify(item)));
}


/** How the parts of a table are held: with their items (`part`), or as their text alone (`textPart`). */
export type PartMaker = (item: Record<string, unknown>) => Part;

// a list's parts in its order, once asked for: a list is not changed once made, and a list made
// from another by a few edits is given its order by the same edits (see keepPartOrder)
const ORDER = new WeakMap<PartList, Part[]>();

// the same, in chunks, for a list a delta made (../delta.ts applyList): versions share the chunks
const CHUNKED_ORDER = new WeakMap<PartList, ChunkedList<Part>>();

/** The parts of `list` in its order (made once per list). */
export function partsInOrder(list: PartList): Part[] {
  let order = ORDER.get(list);
  if (!order || order.length !== idCount(list)) {
    order = CHUNKED_ORDER.get(list)?.toArray() ?? list.ids.map((id) => list.parts.get(id)!);
    ORDER.set(list, order);
  }
  return order;
}

/** The parts of `list` in its order, in chunks (made once per list that is not given them). */
export function chunkedPartOrder(list: PartList): ChunkedList<Part> {
  let order = CHUNKED_ORDER.get(list);
  if (!order || order.length !== idCount(list)) CHUNKED_ORDER.set(list, (order = ChunkedList.from(partsInOrder(list))));
  return order;
}

/** The parts of `list` in its order, known to whoever made it: `order.at(i)` is the part of the list's i-th id. */
export function keepPartOrder(list: PartList, order: ChunkedList<Part>): void {
  CHUNKED_ORDER.set(list, order);
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
 * Adds part `id` to the list: the previous version's part when its text is the same (versions
 * held side by side share it), else the one `shape(a, b)` gives (a function of the module, not a
 * closure per item: a table has tens of thousands of parts), held as `make` holds it.
 */
function push<A, B>(
  list: PartList, seen: Map<string, number>, id: string, reuse: PartList | undefined, make: PartMaker,
  shape: (a: A, b: B) => Record<string, unknown>, a: A, b: B,
): void {
  const uid = uniqueId(list, seen, id);
  const prev = reuse?.parts.get(uid);
  const p = make(shape(a, b));
  list.ids.push(uid);
  list.parts.set(uid, prev && prev.text === p.text ? prev : p);
}

const itself = (o: object): Record<string, unknown> => o as Record<string, unknown>;
const withRoute = (r: object, route: string): Record<string, unknown> => ({ ...r, route });
const withRule = (e: object, rule: string): Record<string, unknown> => ({ ...e, rule });

// ids are joined, not concatenated: a concatenation is kept as a tree of its pieces, which a table
// of 50,000 routes holds some 60 MB of
export const routeId = (r: { kind: string; namespace: string; name: string }): string => [r.kind, r.namespace, r.name].join('/');
export const ruleId = (route: string, index: number): string => [route, index].join('#');
const entryId = (rule: string, e: { matchIndex?: number; hostname?: string }): string =>
  [rule, e.matchIndex ?? '', e.hostname ?? ''].join('|');

type Entry = { rule: number; matchIndex?: number; hostname?: string; match?: object };

/**
 * Makes a table's parts from its items in the table's order: every route, then every rule, then
 * each listener with its entries (a rule names its route, an entry its rule, by index).
 */
class PartsBuilder {
  readonly routes = emptyList();
  readonly rules = emptyList();
  readonly listeners = emptyList();
  readonly entries = new Map<string, PartList>();
  private readonly routeSeen = new Map<string, number>();
  private readonly ruleSeen = new Map<string, number>();
  private readonly listenerSeen = new Map<string, number>();
  private readonly ruleIds: string[] = [];

  constructor(private readonly previous: TableParts | undefined, private readonly make: PartMaker) {}

  route(r: Record<string, unknown>): void {
    push(this.routes, this.routeSeen, routeId(r as { kind: string; namespace: string; name: string }), this.previous?.routes, this.make, itself, r, undefined);
  }

  rule(r: Record<string, unknown>): void {
    const rid = this.routes.ids[r.route as number];
    if (rid === undefined) throw new Error(`rule ${String(r.index)} names route ${String(r.route)}, which the table does not hold`);
    const before = this.rules.ids.length;
    push(this.rules, this.ruleSeen, ruleId(rid, r.index as number), this.previous?.rules, this.make, withRoute, r, rid);
    this.ruleIds.push(this.rules.ids[before]);
  }

  /** `head`: the listener with its entry lists emptied; `entries(list)`: a list's entries, undefined when it has none. */
  listener(head: Record<string, unknown>, entries: (list: EntryList) => Iterable<Entry> | undefined): void {
    const before = this.listeners.ids.length;
    push(this.listeners, this.listenerSeen, head.name as string, this.previous?.listeners, this.make, itself, head, undefined);
    const lid = this.listeners.ids[before];
    for (const list of ENTRY_LISTS) {
      const items = entries(list);
      if (!items) continue;
      const key = entriesKey(lid, list);
      const out = emptyList();
      const seen = new Map<string, number>();
      for (const e of items) {
        const rid = this.ruleIds[e.rule];
        if (rid === undefined) throw new Error(`an entry of listener ${String(head.name)} names rule ${e.rule}, which the table does not hold`);
        push(out, seen, entryId(rid, e), this.previous?.entries.get(key), this.make, withRule, e, rid);
      }
      this.entries.set(key, out);
    }
  }

  /** `head`: the table's other members, with listeners, routes and rules as empty lists. */
  done(head: Record<string, unknown>): TableParts {
    const prevHead = this.previous?.head;
    const h = this.make(head);
    return { head: prevHead && prevHead.text === h.text ? prevHead : h, listeners: this.listeners, routes: this.routes, rules: this.rules, entries: this.entries };
  }
}

/**
 * The parts of a table (the reference: the worker has compile make them, see compileParts).
 * `previous` (the parts of an earlier version) only lets equal parts share their text; the answer
 * is the same without it. `make` says how the parts are held (see textPart).
 */
export function tableParts(table: CompiledTable, previous?: TableParts, make: PartMaker = part): TableParts {
  const b = new PartsBuilder(previous, make);
  table.routes.forEach((r) => b.route(r as unknown as Record<string, unknown>));
  for (const r of table.rules) b.rule(r as unknown as Record<string, unknown>);
  table.listeners.forEach((l) => {
    const head: Record<string, unknown> = { ...l };
    for (const list of ENTRY_LISTS) if (head[list] !== undefined) head[list] = [];
    b.listener(head, (list) => (l[list] as Entry[] | undefined) || undefined);
  });
  return b.done({ ...table, listeners: [], routes: [], rules: [] });
}

/**
 * tableParts of the table JSON.stringify wrote as `text`, without parsing it whole: each route,
 * rule, entry and listener is parsed alone and let go once its part is made. A stored table of
 * 50,000 routes is a text of 60 MB whose objects took some 400 MB more for as long as its parts
 * were being made.
 */
export function tablePartsOfText(text: string, make: PartMaker = part): TableParts {
  const b = new PartsBuilder(undefined, make);
  const head: Record<string, unknown> = {};
  const at: Record<'listeners' | 'routes' | 'rules', number | undefined> = { listeners: undefined, routes: undefined, rules: undefined };
  for (const [key, from, to] of objectMembers(text, 0)) {
    if (key === 'listeners' || key === 'routes' || key === 'rules') {
      at[key] = from;
      head[key] = [];
    } else setMember(head, key, JSON.parse(text.slice(from, to)));
  }
  const each = (from: number | undefined, fn: (item: Record<string, unknown>) => void) => {
    if (from === undefined) throw new Error('the table text has no listeners, routes or rules');
    for (const [f, t] of arrayElements(text, from)) fn(JSON.parse(text.slice(f, t)) as Record<string, unknown>);
  };
  each(at.routes, (r) => b.route(r));
  each(at.rules, (r) => b.rule(r));
  if (at.listeners === undefined) throw new Error('the table text has no listeners');
  for (const [lf] of arrayElements(text, at.listeners)) {
    const l: Record<string, unknown> = {};
    const lists = new Map<string, number>();
    for (const [key, from, to] of objectMembers(text, lf)) {
      if ((ENTRY_LISTS as readonly string[]).includes(key)) {
        l[key] = [];
        // tableParts makes entries of an array only (null holds the place of a list with none)
        if (text.charCodeAt(from) === 0x5b) lists.set(key, from);
        else if (text.slice(from, to) !== 'null') throw new Error(`listener entries "${key}" are not a list`);
      } else setMember(l, key, JSON.parse(text.slice(from, to)));
    }
    b.listener(l, (list) => {
      const from = lists.get(list);
      if (from === undefined) return undefined;
      return (function* () {
        for (const [f, t] of arrayElements(text, from)) yield JSON.parse(text.slice(f, t)) as Entry;
      })();
    });
  }
  return b.done({ ...head, listeners: [], routes: [], rules: [] });
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
