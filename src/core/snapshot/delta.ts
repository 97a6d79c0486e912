// Deltas between two versions of a table (openapi/schemas/snapshot-delta.yaml), as pure functions:
// the changes that lead from one table's parts to another's, and their application. Within a list
// the parts that keep their relative order are the longest increasing run of their new positions;
// every other common part moved (removed, then added after its new predecessor), so a delta is as
// small as the change, whatever the list's length.
import type { components } from '../../generated/api';
import {
  ChunkedPartList, chunkedIds, chunkedPartOrder, emptyList, ENTRY_LISTS, entriesKey, idAt, idCount, idPositions, idsOf, keepPartOrder, part, tableOfParts,
  type EntryList, type Part, type PartList, type PartMaker, type TableParts,
} from './table-parts';
import type { CompiledTable, SnapshotSecret } from '../compile/types';
import { noteNoSecretsCarried, secretDigests } from './format';
import { tableHash } from './table-hash';
import { changesFrom } from './list-changes';
import { nextParts } from './part-map';
import { editedFrom, noteEdited, SpanOfEdits } from './list-edits';
import { ChunkedList } from '../model/chunked-list';

export type SnapshotDelta = components['schemas']['SnapshotDelta'];
export type SnapshotDeltaChange = components['schemas']['SnapshotDeltaChange'];

type ListChanges = Pick<SnapshotDeltaChange, 'removed' | 'added' | 'replaced'>;

/** What a delta carries for a part: its item (see snapshotDeltaText for another). */
type ItemOf = (p: Part) => Part['item'];
const itemOfPart: ItemOf = (p) => p.item;

/** Indices (into `seq`) of one longest strictly increasing subsequence of `seq`. */
function longestIncreasing(seq: readonly number[]): Set<number> {
  const tails: number[] = []; // tails[k]: index in seq of the smallest tail of an increasing run of length k+1
  const prev = new Array<number>(seq.length).fill(-1);
  for (let i = 0; i < seq.length; i++) {
    let lo = 0;
    let hi = tails.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (seq[tails[mid]] < seq[i]) lo = mid + 1;
      else hi = mid;
    }
    if (lo > 0) prev[i] = tails[lo - 1];
    tails[lo] = i;
  }
  const keep = new Set<number>();
  for (let i = tails.length ? tails[tails.length - 1] : -1; i >= 0; i = prev[i]) keep.add(i);
  return keep;
}

/** What leads from list `a` to list `b`. */
export function diffList(a: PartList, b: PartList, itemOf: ItemOf = itemOfPart): ListChanges {
  const removed: string[] = [];
  const added: ListChanges['added'] = [];
  const replaced: ListChanges['replaced'] = [];
  const same = (id: string) => a.parts.get(id) === b.parts.get(id) || a.parts.get(id)!.text === b.parts.get(id)!.text;
  // a change leaves most of a list alone: the ids the two lists start and end with in common are
  // kept where they are without building any index of them
  let head = 0;
  while (head < a.ids.length && head < b.ids.length && a.ids[head] === b.ids[head]) head++;
  let tail = 0;
  while (tail < a.ids.length - head && tail < b.ids.length - head && a.ids[a.ids.length - 1 - tail] === b.ids[b.ids.length - 1 - tail]) tail++;
  for (let i = 0; i < head; i++) if (!same(b.ids[i])) replaced.push({ id: b.ids[i], item: itemOf(b.parts.get(b.ids[i])!) });
  const aMid = a.ids.slice(head, a.ids.length - tail);
  const bMid = b.ids.slice(head, b.ids.length - tail);
  const newPos = new Map(bMid.map((id, i) => [id, i]));
  const common: string[] = [];
  for (const id of aMid) (newPos.has(id) ? common : removed).push(id);
  const kept = new Set<string>();
  const run = longestIncreasing(common.map((id) => newPos.get(id)!));
  common.forEach((id, i) => (run.has(i) ? kept.add(id) : removed.push(id)));
  bMid.forEach((id, i) => {
    const at = head + i;
    if (!kept.has(id)) added.push({ id, after: at === 0 ? null : b.ids[at - 1], item: itemOf(b.parts.get(id)!) });
    else if (!same(id)) replaced.push({ id, item: itemOf(b.parts.get(id)!) });
  });
  for (let i = b.ids.length - tail; i < b.ids.length; i++) if (!same(b.ids[i])) replaced.push({ id: b.ids[i], item: itemOf(b.parts.get(b.ids[i])!) });
  return { removed, added, replaced };
}

/**
 * What leads from list `a` to list `b` when only the `touched` ids may differ between them (every
 * other id is in both, with the same part, in the same order among the others): the changes
 * diffList finds, from the touched ids alone. A touched id in both stays in place when it lies
 * between the same two untouched ids in both lists and in an increasing run of the ones that do;
 * every other one moves.
 */
export function diffTouched(a: PartList, b: PartList, touched: ReadonlySet<string>, itemOf: ItemOf = itemOfPart): ListChanges {
  const removed: string[] = [];
  const added: (ListChanges['added'][number] & { at: number })[] = [];
  const replaced: ListChanges['replaced'] = [];
  // the untouched ids on either side of position k: the gap it lies in (lists are read by
  // position, not made into arrays: a merge's lists are chunked, see table-parts)
  const gap = (l: PartList, k: number) => {
    const n = idCount(l);
    let lo = k - 1;
    while (lo >= 0 && touched.has(idAt(l, lo)!)) lo--;
    let hi = k + 1;
    while (hi < n && touched.has(idAt(l, hi)!)) hi++;
    return `${lo < 0 ? '' : idAt(l, lo)}\u0000${hi < n ? idAt(l, hi) : ''}`;
  };
  // a list a merge made from `a` says where its edits lie (./list-edits): a touched id is looked
  // for there (in `b`, the spans; in `a`, the stretches they stand in for), not in the whole list
  const edited = editedFrom(b);
  const ranges = { a: [] as [number, number][], b: [] as [number, number][] };
  if (edited?.base === a) {
    let shift = 0;
    for (const s of edited.spans) {
      ranges.b.push([s.lo, s.hi]);
      ranges.a.push([s.lo - shift, s.lo - shift + s.baseLength]);
      shift += s.hi - s.lo - s.baseLength;
    }
  }
  // The touched ids' places in a list, found in one pass over its spans (or, when it has none or a
  // touched id it holds lies outside them, over the whole list) that checks each id against the
  // touched set: a search of the list for each id compares ids that share long prefixes character
  // by character (some 0.6 ms a search at 5,000 routes), and a pass over the whole list for each
  // run of a burst cost a tenth of the run.
  const indexOf = (l: PartList): ((id: string) => number) => {
    const where = l === a ? ranges.a : ranges.b;
    let at = new Map<string, number>();
    for (const [lo, hi] of where) idPositions(l, touched, at, lo, hi);
    let held = 0;
    if (where.length > 0) for (const id of touched) if (l.parts.has(id)) held++;
    if (where.length === 0 || held > at.size) at = idPositions(l, touched);
    return (id) => at.get(id) ?? -1;
  };
  const inAAt = indexOf(a);
  const inBAt = indexOf(b);
  const gaps = new Map<string, { id: string; i: number; j: number }[]>();
  const move = (id: string, j: number) => added.push({ id, after: j === 0 ? null : idAt(b, j - 1)!, item: itemOf(b.parts.get(id)!), at: j });
  for (const id of touched) {
    const inA = a.parts.has(id);
    if (!b.parts.has(id)) {
      if (inA) removed.push(id);
      continue;
    }
    const j = inBAt(id);
    if (!inA) {
      move(id, j);
      continue;
    }
    const i = inAAt(id);
    const g = gap(a, i);
    if (g !== gap(b, j)) {
      removed.push(id);
      move(id, j);
      continue;
    }
    (gaps.get(g) ?? gaps.set(g, []).get(g)!).push({ id, i, j });
  }
  for (const group of gaps.values()) {
    group.sort((x, y) => x.i - y.i);
    const run = longestIncreasing(group.map((x) => x.j));
    group.forEach((x, k) => {
      if (!run.has(k)) {
        removed.push(x.id);
        move(x.id, x.j);
        return;
      }
      const pa = a.parts.get(x.id)!;
      const pb = b.parts.get(x.id)!;
      if (pa !== pb && pa.text !== pb.text) replaced.push({ id: x.id, item: itemOf(pb) });
    });
  }
  added.sort((x, y) => x.at - y.at);
  return { removed, added: added.map(({ at: _at, ...x }) => x), replaced };
}

const changed = (c: ListChanges) => c.removed.length + c.added.length + c.replaced.length > 0;

/** The changes from table parts `a` to `b`, in the order they are applied. */
export function diffParts(a: TableParts, b: TableParts, itemOf: ItemOf = itemOfPart): Pick<SnapshotDelta, 'head' | 'changes'> {
  const changes: SnapshotDeltaChange[] = [];
  // a translation that patched `a` into `b` says which ids it touched (./list-changes)
  const known = changesFrom(b, a);
  const diff = (label: string, x: PartList, y: PartList): ListChanges | undefined => {
    if (x === y) return undefined;
    const touched = known?.touched.get(label);
    return touched ? diffTouched(x, y, touched, itemOf) : diffList(x, y, itemOf);
  };
  for (const collection of ['listeners', 'routes', 'rules'] as const) {
    const c = diff(collection, a[collection], b[collection]);
    if (c && changed(c)) changes.push({ collection, ...c });
  }
  for (const lid of b.listeners.ids) {
    for (const list of ENTRY_LISTS) {
      const key = entriesKey(lid, list);
      const nb = b.entries.get(key);
      if (!nb) continue;
      // a listener that was not there, or had not this list, starts from nothing
      const c = diff(key, a.listeners.parts.has(lid) ? a.entries.get(key) ?? emptyList() : emptyList(), nb);
      if (c && changed(c)) changes.push({ collection: 'entries', listener: lid, list, ...c });
    }
  }
  return { ...(a.head.text !== b.head.text ? { head: itemOf(b.head) } : {}), changes };
}

/**
 * `list` with the changes applied (a new list; `list` is left alone). The parts in order are kept
 * beside the ids and edited with them: a part is found there by identity, where a search of
 * 50,000 ids compares each one's characters.
 */
export function applyList(list: PartList, c: ListChanges, make: PartMaker = part): PartList {
  const gone = new Set<Part>();
  for (const id of c.removed) {
    const p = list.parts.get(id);
    if (!p) throw new DeltaMismatch(`the delta removes ${id}, which is not there`);
    if (gone.has(p)) throw new DeltaMismatch('the delta removes an id twice');
    gone.add(p);
  }
  // the ids and the parts in order, in chunks the versions share (model/chunked-list): a change
  // copies the chunks it edits, not lists of 150,000 ids; where the edits went is noted, so that a
  // reader that hashes the list (a proxy) cuts only the chunks around them anew (./table-hash)
  let ids = chunkedIds(list).edit();
  let order = chunkedPartOrder(list).edit();
  let span: SpanOfEdits | undefined = new SpanOfEdits();
  if (gone.size <= 8) {
    for (const p of gone) {
      const at = order.indexOf(p);
      ids.remove(at, 1);
      order.remove(at, 1);
      span.remove(at, 1);
    }
  } else {
    const keptIds: string[] = [];
    const kept: Part[] = [];
    const idsInOrder = idsOf(list)[Symbol.iterator]();
    for (const p of chunkedPartOrder(list)) {
      const id = idsInOrder.next().value as string;
      if (!gone.has(p)) {
        keptIds.push(id);
        kept.push(p);
      }
    }
    ids = ChunkedList.from(keptIds).edit();
    order = ChunkedList.from(kept).edit();
    span = undefined;
  }
  // the new list takes the map over, and `list` still reads as it did (./part-map)
  const { next, edit } = nextParts(list, (parts) => new ChunkedPartList(ChunkedList.empty(), parts));
  for (const id of c.removed) edit.delete(id);
  const at = (id: string) => {
    const p = next.parts.get(id);
    return p ? order.indexOf(p) : -1;
  };
  const made: Part[] = [];
  let lastId: string | null | undefined;
  let lastAt = -1;
  for (const a of c.added) {
    if (next.parts.has(a.id)) throw new DeltaMismatch(`the delta adds ${a.id}, which is there already`);
    // runs of added parts (a new listener's entries) follow one another: no search for those
    const after = a.after === null ? -1 : a.after === lastId ? lastAt : at(a.after);
    if (after < 0 && a.after !== null) throw new DeltaMismatch(`the delta adds ${a.id} after ${a.after}, which is not there`);
    const p = make(a.item);
    made.push(p);
    ids.insert(after + 1, [a.id]);
    order.insert(after + 1, [p]);
    span?.insert(after + 1, 1);
    edit.set(a.id, p);
    lastId = a.id;
    lastAt = after + 1;
  }
  for (const r of c.replaced) {
    const k = at(r.id);
    if (k < 0) throw new DeltaMismatch(`the delta replaces ${r.id}, which is not there`);
    const p = make(r.item);
    made.push(p);
    order.set(k, p);
    span?.remove(k, 1);
    span?.insert(k, 1);
    edit.set(r.id, p);
  }
  next.chunked = ids.done();
  keepPartOrder(next, order.done());
  const edited = span?.of(list);
  if (edited) noteEdited(next, edited);
  noteNoSecretsCarried(next, list, made);
  return next;
}

/** A delta that does not fit the parts it is applied to: the client fetches the whole snapshot. */
export class DeltaMismatch extends Error {}

/** The parts after the delta's changes, the new ones held as `make` holds them; `p` is left alone. */
export function applyChanges(p: TableParts, d: Pick<SnapshotDelta, 'head' | 'changes'>, make: PartMaker = part): TableParts {
  const out: TableParts = { ...p, entries: new Map(p.entries) };
  if (d.head) out.head = make(d.head);
  for (const c of d.changes) {
    if (c.collection !== 'entries') {
      out[c.collection] = applyList(out[c.collection], c, make);
      if (c.collection === 'listeners') {
        // the entry lists of a removed listener go with it, and so does a list its new item lacks;
        // a listener that is new, or a list new to it, starts from nothing
        for (const key of [...out.entries.keys()]) {
          const at = key.indexOf('\u0000');
          const l = out.listeners.parts.get(key.slice(0, at));
          if (!l || l.item[key.slice(at + 1)] === undefined) out.entries.delete(key);
        }
      }
      continue;
    }
    if (c.listener === undefined || c.list === undefined || !out.listeners.parts.has(c.listener)) {
      throw new DeltaMismatch(`the delta changes the entries of listener ${String(c.listener)}, which is not there`);
    }
    const key = entriesKey(c.listener, c.list as EntryList);
    out.entries.set(key, applyList(out.entries.get(key) ?? emptyList(), c, make));
  }
  return out;
}

/** The delta from `a` to `b` as the watch sends it. */
export function snapshotDelta(
  gateway: SnapshotDelta['gateway'], fromVersion: number, version: number, hash: string, a: TableParts, b: TableParts,
  secrets?: readonly SnapshotSecret[],
): SnapshotDelta {
  return { gateway, version, fromVersion, hash, ...diffParts(a, b), ...(secrets ? { secrets: [...secrets] } : {}) };
}

/**
 * JSON.stringify(snapshotDelta(...)), with each part's text set into it as it is: a part's text is
 * its item as JSON.stringify writes it (./table-parts), and parsing it to write it again cost a
 * burst's runs some 17 µs a route. The parts stand in the JSON as NUL-delimited placeholders with a
 * tag of this call's own; no stored string holds a NUL (validation refuses them), and the tag keeps
 * a Secret's bytes from passing for one.
 */
export function snapshotDeltaText(
  gateway: SnapshotDelta['gateway'], fromVersion: number, version: number, hash: string, a: TableParts, b: TableParts,
  secrets?: readonly SnapshotSecret[],
): string {
  const texts: string[] = [];
  const tag = Math.random().toString(36).slice(2, 10);
  const d = { gateway, version, fromVersion, hash, ...diffParts(a, b, (p) => `\u0000${tag}:${texts.push(p.text) - 1}\u0000` as unknown as Part['item']), ...(secrets ? { secrets: [...secrets] } : {}) };
  const json = JSON.stringify(d);
  if (texts.length === 0) return json;
  return json.replace(new RegExp(`"\\\\u0000${tag}:(\\d+)\\\\u0000"`, 'g'), (_, k: string) => texts[Number(k)]);
}

export interface Applied {
  parts: TableParts;
  table: CompiledTable;
  hash: string;
}

/**
 * A delta applied to the parts of the version it names, checked: the rebuilt table, with the
 * Secrets the client will hold, must hash to the delta's hash. Throws DeltaMismatch otherwise.
 */
export function applyDelta(p: TableParts, version: number, d: SnapshotDelta, secrets: readonly SnapshotSecret[]): Applied {
  if (d.fromVersion !== version) throw new DeltaMismatch(`the delta applies to version ${d.fromVersion}, not to ${version}`);
  const parts = applyChanges(p, d);
  const hash = tableHash(parts, secretDigests(secrets.map((s) => ({ metadata: { namespace: s.namespace, name: s.name }, data: s.data }))));
  if (hash !== d.hash) throw new DeltaMismatch(`the table rebuilt from the delta to version ${d.version} does not hash to ${d.hash}`);
  return { parts, table: tableOfParts(parts), hash };
}

export type { Part, PartList, TableParts };
