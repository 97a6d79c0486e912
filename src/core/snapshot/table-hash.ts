// The snapshot's content hash, over the table's parts (./table-parts) rather than its whole text:
// each part's digest is made once, when the part is made, and kept with it, and each list's digest
// once per list (a version that changes one route shares every other list with the version before),
// so that a version that changes one route hashes its few new parts and the lists that hold them,
// instead of serializing and hashing the whole table. A client holding parts (a proxy applying
// deltas) checks a delta the same way. The parts are a function of the table alone (tableParts), so
// the hash is too: the same table and Secrets give the same hash however the parts were made.
//
//   hash = sha256 of these, joined by tabs:
//     "table-parts/2", "\nH" + digest(head),
//     for listeners, routes and rules in turn: "\n" + collection, then the list's digest,
//     for each listener, each entry list it has that is not empty: "\nE", listener id, list, then
//     the list's digest,
//     "\nS" + the canonical JSON of the Secrets' digests
// where a part's digest is its text's sha256 (base64); a list's parts are cut into chunks after
// every part whose digest starts with a character whose code is a multiple of 16 (and after the
// last), a chunk's digest is the sha256 (base64) of its parts' digests joined by tabs, and a list's
// digest the sha256 (base64) of its chunks' digests joined by tabs. The cuts follow the parts, not
// their places, so a change to one part of a long list makes one chunk anew and the others are
// found again where they were. The ids need no hashing: a part's text names what
// its id is made of (a route its kind, namespace and name; a rule its route and index; an entry its
// rule, match index and hostname; a listener its name and owner), and a repeat's suffix follows
// from the order, so the texts in order determine the ids.
import { createHash } from 'node:crypto';
import { canonicalJson } from '../objects/canonical';
import { ENTRY_LISTS, entriesKey, partsInOrder, type Part, type PartList, type TableParts } from './table-parts';
import type { SecretDigest } from './format';
import { editedFrom } from './list-edits';
import { findSorted } from '../model/sorted';

const HASH_FORMAT = 'table-parts/2';

/** The sha256 of a part's text, made once per part (parts are shared by the versions that hold them). */
export function partDigest(p: Part): string {
  return (p.digest ??= createHash('sha256').update(p.text).digest('base64'));
}

// lists are not changed once made (a new version makes new lists), so a list's digest is kept with
// it; a chunk's digest is kept with its first part, with the parts it was made from
const LIST_DIGESTS = new WeakMap<PartList, string>();
const CHUNKS = new WeakMap<Part, { parts: Part[]; digest: string }>();
const sha = (s: string) => createHash('sha256').update(s).digest('base64');

function chunkDigest(chunk: Part[]): string {
  const hit = CHUNKS.get(chunk[0]);
  if (hit && hit.parts.length === chunk.length && hit.parts.every((p, k) => p === chunk[k])) return hit.digest;
  const digest = sha(chunk.map(partDigest).join('\t'));
  CHUNKS.set(chunk[0], { parts: chunk, digest });
  return digest;
}

/** A list's chunks in order: where each ends (after its last part's position) and its digest. */
interface Chunks {
  ends: number[];
  digests: string[];
}
const LIST_CHUNKS = new WeakMap<PartList, Chunks>();

/** The chunks of `order` from position `from`, up to its end or, with `until`, the first cut at or after it. */
function cutChunks(order: readonly Part[], from: number, out: Chunks, until = Infinity): number {
  let chunk: Part[] = [];
  for (let i = from; i < order.length; i++) {
    const p = order[i];
    chunk.push(p);
    if (partDigest(p).charCodeAt(0) % 16 === 0 || i === order.length - 1) {
      out.ends.push(i + 1);
      out.digests.push(chunkDigest(chunk));
      chunk = [];
      if (i >= until) return i + 1;
    }
  }
  return order.length;
}

/**
 * The chunks of a list made from another by edits within a span (./list-edits): the other's
 * chunks before the one the span starts in, the chunks over the span cut anew, and the other's
 * after the first cut past the span (its parts are the other's from there on, so are its cuts).
 * Undefined when the other's chunks are not known.
 */
function chunksAcross(list: PartList, order: readonly Part[]): Chunks | undefined {
  const span = editedFrom(list);
  const was = span && LIST_CHUNKS.get(span.base);
  if (!span || !was || was.ends.length === 0) return undefined;
  // the first chunk that reaches into the span (the last one when the span is past the base's end)
  let k = findSorted(was.ends, span.lo + 1, (end, at) => end - at);
  if (k >= was.ends.length) k = was.ends.length - 1;
  const out: Chunks = { ends: was.ends.slice(0, k), digests: was.digests.slice(0, k) };
  const end = cutChunks(order, k === 0 ? 0 : was.ends[k - 1], out, span.hi);
  if (end === order.length) return out;
  // the cut at `end` in this list is the base's at `end - shift`: its chunks after it follow
  const after = findSorted(was.ends, end - span.shift, (e, at) => e - at);
  if (was.ends[after] !== end - span.shift) return undefined;
  for (let c = after + 1; c < was.ends.length; c++) {
    out.ends.push(was.ends[c] + span.shift);
    out.digests.push(was.digests[c]);
  }
  return out;
}

function listDigest(list: PartList): string {
  let d = LIST_DIGESTS.get(list);
  if (d === undefined) {
    const order = partsInOrder(list);
    let chunks = chunksAcross(list, order);
    if (!chunks) cutChunks(order, 0, (chunks = { ends: [], digests: [] }));
    LIST_CHUNKS.set(list, chunks);
    LIST_DIGESTS.set(list, (d = sha(chunks.digests.join('\t'))));
  }
  return d;
}

function listLine(out: string[], label: string, list: PartList): void {
  out.push(label, listDigest(list));
}

/**
 * The hash of a table given as its parts, with the digests of the Secrets its listeners use
 * (secretDigests' order): the certificates travel beside the table, and a rotated Secret must move
 * the version.
 */
export function tableHash(p: TableParts, digests: readonly SecretDigest[]): string {
  const out: string[] = [HASH_FORMAT, `\nH${partDigest(p.head)}`];
  listLine(out, '\nlisteners', p.listeners);
  listLine(out, '\nroutes', p.routes);
  listLine(out, '\nrules', p.rules);
  for (const lid of p.listeners.ids) {
    for (const list of ENTRY_LISTS) {
      const entries = p.entries.get(entriesKey(lid, list));
      // an empty list is not told from an absent one (a listener's head says which lists it has)
      if (entries?.ids.length) listLine(out, `\nE\t${lid}\t${list}`, entries);
    }
  }
  out.push(`\nS${canonicalJson(digests)}`);
  return createHash('sha256').update(out.join('\t')).digest('hex');
}
