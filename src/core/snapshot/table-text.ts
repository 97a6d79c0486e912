// The compiled table's JSON text (what compile's tableJson writes) put together from its parts
// (./table-parts) without building the table: each part's text is kept, and a rule's or an
// entry's text is split once around the id it names, where the table has an index. A reader that
// holds the parts of a version and applies a delta to them (the API, for its whole-snapshot
// clients) so pays for string joins, not for a table of objects and its serialization.
import { ENTRY_LISTS, entriesKey, idsOf, type Part, type PartList, type TableParts } from './table-parts';

/** the text of `p` before the id it names as `member`, the id, and the text after it */
function around(p: Part, member: 'route' | 'rule'): [string, string, string] | undefined {
  const text = p.text;
  let from = p.cut;
  if (from === undefined) {
    // the member comes before any object or string that could hold the same characters: a rule
    // starts with its route; an entry has at most a hostname (no quotes in it) before its rule
    const at = text.indexOf(`"${member}":"`);
    if (at < 0) return undefined;
    from = at + member.length + 3;
    p.cut = from;
  }
  // an id holds no quote or backslash (names, kinds, numbers and hostnames), so its JSON is itself
  // in quotes: it ends at the next quote
  const end = text.indexOf('"', from + 1);
  return [text.slice(0, from), text.slice(end + 1), text.slice(from + 1, end)];
}

// The text is made by a generator that pauses every SLICE parts: run through at once, or (the
// worker's cut of a long chain of deltas, a 60 MB text at 50,000 routes) by a caller that lets
// other work run between the pauses, so that a recompute asked for meanwhile does not wait for
// all of it.
const SLICE = 4096;
type Steps<T> = Generator<void, T, void>;

function* indexOf(list: PartList): Steps<Map<string, number>> {
  // the ids are walked, not made into an array: a list a merge or a delta made is held in chunks
  const m = new Map<string, number>();
  let i = 0;
  for (const id of idsOf(list)) {
    m.set(id, i++);
    if (i % SLICE === 0) yield;
  }
  return m;
}

function* referring(list: PartList, member: 'route' | 'rule', index: Map<string, number>): Steps<string> {
  const out: string[] = [];
  for (const id of idsOf(list)) {
    const p = list.parts.get(id)!;
    const cut = around(p, member);
    const item = cut ? undefined : p.item;
    const ref = cut ? cut[2] : item![member];
    const at = index.get(ref as string);
    if (at === undefined) throw new Error(`part ${id} names ${member} ${String(ref)}, which the table does not hold`);
    out.push(cut ? cut[0] + at + cut[1] : JSON.stringify({ ...item, [member]: at }));
    if (out.length % SLICE === 0) yield;
  }
  return `[${out.join(',')}]`;
}

/** An object's text with the members `lists` holds written as it holds them (the lists a part holds only the place of). */
function withLists(item: Record<string, unknown>, lists: ReadonlyMap<string, string>): string {
  const out: string[] = [];
  for (const [k, v] of Object.entries(item)) {
    if (v === undefined) continue;
    out.push(`${JSON.stringify(k)}:${lists.get(k) ?? JSON.stringify(v)}`);
  }
  return `{${out.join(',')}}`;
}

/** The steps of tableTextOfParts: each `next()` runs up to a pause; the last answers the text. */
export function* tableTextSteps(p: TableParts): Steps<string> {
  const routeIndex = yield* indexOf(p.routes);
  const ruleIndex = yield* indexOf(p.rules);
  const listeners: string[] = [];
  for (const lid of p.listeners.ids) {
    const item = p.listeners.parts.get(lid)!.item;
    const lists = new Map<string, string>();
    for (const k of ENTRY_LISTS) {
      if (item[k] === undefined) continue;
      const entries = p.entries.get(entriesKey(lid, k));
      lists.set(k, entries ? yield* referring(entries, 'rule', ruleIndex) : '[]');
    }
    listeners.push(withLists(item, lists));
  }
  const texts: string[] = [];
  for (const id of idsOf(p.routes)) {
    texts.push(p.routes.parts.get(id)!.text);
    if (texts.length % SLICE === 0) yield;
  }
  const rules = yield* referring(p.rules, 'route', routeIndex);
  return withLists(p.head.item, new Map([['listeners', `[${listeners.join(',')}]`], ['routes', `[${texts.join(',')}]`], ['rules', rules]]));
}

/** JSON.stringify(tableOfParts(p)), made from the parts' texts. */
export function tableTextOfParts(p: TableParts): string {
  const steps = tableTextSteps(p);
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}
