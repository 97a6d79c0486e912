// The snapshot's content hash, over the table's parts (./table-parts) rather than its whole text:
// each list's digest is made once per list (a version that changes one route shares every other
// list with the version before), from its chunks' digests, and a list made by edits cuts anew only
// the chunks the edits reach, so that a version that changes one route hashes the parts of a few
// chunks instead of serializing and hashing the whole table. A part's digest is not kept: some six
// a route, they took 19 MB at 50,000 routes, for the few dozen parts a change hashes again. A client holding parts (a proxy applying
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
import * as crypto from 'node:crypto';
import { canonicalJson } from '../objects/canonical';
import { ENTRY_LISTS, entriesKey, idAt, idCount, partsInOrder, type Part, type PartList, type TableParts } from './table-parts';
import type { SecretDigest } from './format';
import { editedFrom, type Span } from './list-edits';
import { ChunkRecords, ChunkRecordsBuilder } from './chunk-records';

const HASH_FORMAT = 'table-parts/2';

// the one-shot hash (Node 20.12 and later) costs a third of a Hash object's for a part's few hundred bytes
const sha: (s: string) => string = typeof crypto.hash === 'function'
  ? (s) => crypto.hash('sha256', s, 'base64')
  : (s) => crypto.createHash('sha256').update(s).digest('base64');

/** The sha256 of a part's text. */
export const partDigest = (p: Part): string => sha(p.text);

// lists are not changed once made (a new version makes new lists), so a list's digest is kept with it
const LIST_DIGESTS = new WeakMap<PartList, string>();

// a list's chunks, kept with it for the versions made from it by edits
const LIST_CHUNKS = new WeakMap<PartList, ChunkRecords>();

/** A list's parts read by position (a chunked list is not made into an array for this). */
interface PartsAt {
  length: number;
  at(i: number): Part;
}

const arrayAt = (order: readonly Part[]): PartsAt => ({ length: order.length, at: (i) => order[i] });
const listAt = (list: PartList): PartsAt => ({ length: idCount(list), at: (i) => list.parts.get(idAt(list, i)!)! });

/**
 * What the hashing did, for tests to hold it to its claims: chunks cut (anew), and lists noted as
 * made by edits that were cut whole all the same.
 */
export const hashWork = { chunksCut: 0, editedCutWhole: 0 };

/** The chunks of `order` from position `from`, up to its end or, with `until`, the first cut at or after it. */
function cutChunks(order: PartsAt, from: number, out: ChunkRecordsBuilder, until = Infinity): number {
  let chunk: string[] = [];
  for (let i = from; i < order.length; i++) {
    const digest = partDigest(order.at(i));
    chunk.push(digest);
    if (digest.charCodeAt(0) % 16 === 0 || i === order.length - 1) {
      out.push(chunk.length, sha(chunk.join('\t')));
      hashWork.chunksCut++;
      chunk = [];
      if (i >= until) return i + 1;
    }
  }
  return order.length;
}

/**
 * The chunks of a list made from another by edits within spans (./list-edits): the other's chunks
 * up to the one a span starts in, the chunks from there to the first cut past the span cut anew,
 * then the other's again (past a span its parts are the other's, so are its cuts), and so on.
 * Undefined when the other's chunks are not known.
 */
function chunksAcross(list: PartList, order: PartsAt): ChunkRecords | undefined {
  const edited = editedFrom(list);
  const was = edited && LIST_CHUNKS.get(edited.base);
  if (!edited || !was || was.count === 0) return undefined;
  const { spans } = edited;
  const out = new ChunkRecordsBuilder();
  // `next`: the base's chunk to take next; `done`: the new list's position up to which `out` holds
  // its chunks (a cut); `shift`: the new list's positions less the base's, past the spans taken
  let next = 0;
  let done = 0;
  let shift = 0;
  const taken = (s: Span) => (shift += s.hi - s.lo - s.baseLength);
  for (let i = 0; i < spans.length;) {
    // the first base chunk reaching into the span (the last one when the span is past the base's end)
    const k = Math.min(was.firstEndingAfter(spans[i].lo - shift), was.count - 1);
    if (next < k) {
      was.copyTo(out, next, k);
      next = k;
    }
    done = Math.max(done, was.endOf(next - 1) + shift);
    // the chunks taken end where the cut goes on from (a base not cut as the spans say: cut whole)
    if (out.parts !== done) return undefined;
    let until = spans[i].hi;
    taken(spans[i++]);
    // cut past the span, and past every span the cut reaches whose parts it ends in
    for (;;) {
      done = cutChunks(order, done, out, until);
      if (done === order.length) return out.done();
      let further = false;
      while (i < spans.length && spans[i].lo < done) {
        const s = spans[i++];
        taken(s);
        if (s.hi >= done) {
          until = s.hi;
          further = true;
        }
      }
      if (!further) break;
    }
    // the cut at `done` is the base's at `done - shift`: its chunks after it follow
    const at = was.endingAt(done - shift);
    if (at < 0) return undefined;
    next = at + 1;
  }
  was.copyTo(out, next, was.count);
  return out.done();
}

function listDigest(list: PartList): string {
  let d = LIST_DIGESTS.get(list);
  if (d === undefined) {
    let chunks = chunksAcross(list, listAt(list));
    if (!chunks) {
      const base = editedFrom(list)?.base;
      if (base && LIST_CHUNKS.get(base)?.count) hashWork.editedCutWhole++;
      const whole = new ChunkRecordsBuilder();
      cutChunks(arrayAt(partsInOrder(list)), 0, whole);
      chunks = whole.done();
    }
    LIST_CHUNKS.set(list, chunks);
    // the digests joined by tabs, a block at a time (a list of 150,000 has some 7,000: joined whole,
    // they make a string the engine allocates apart), each block's joined once for every version
    const h = crypto.createHash('sha256');
    let first = true;
    chunks.forEachJoined((joined) => {
      if (!first) h.update('\t');
      first = false;
      h.update(joined);
    });
    LIST_DIGESTS.set(list, (d = h.digest('base64')));
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
      if (entries && idCount(entries)) listLine(out, `\nE\t${lid}\t${list}`, entries);
    }
  }
  out.push(`\nS${canonicalJson(digests)}`);
  return crypto.createHash('sha256').update(out.join('\t')).digest('hex');
}
