// Where a list made from another by a few edits differs from it: one span of positions in the new
// list, outside which its parts are the other's (before the span at the same positions, after it
// shifted by `shift`). What reads a long list again for each version (the hash's chunks, see
// ./table-hash) reads only around the span. Pure bookkeeping: the merge that edits a list
// (translate/route-changes.ts) reports its removals and insertions in the order it makes them.
import type { PartList } from './table-parts';

export interface EditedSpan {
  /** the list the edits were made to */
  base: PartList;
  /** the new list's positions [lo, hi) may differ from the base's; lo === hi: parts went at lo */
  lo: number;
  hi: number;
  /** the new list's length less the base's: a position p >= hi holds the base's part at p - shift */
  shift: number;
}

/** Collects edits to a list, each in the positions of the list as the edits before it left it. */
export class SpanOfEdits {
  private lo = Infinity;
  private hi = -Infinity;
  private shift = 0;

  remove(at: number, count: number): void {
    const end = at + count;
    const moved = (p: number) => (p >= end ? p - count : p > at ? at : p);
    this.lo = Math.min(moved(this.lo), at);
    this.hi = Math.max(moved(this.hi), at);
    this.shift -= count;
  }

  insert(at: number, count: number): void {
    if (this.lo >= at) this.lo += count;
    if (this.hi > at) this.hi += count;
    this.lo = Math.min(this.lo, at);
    this.hi = Math.max(this.hi, at + count);
    this.shift += count;
  }

  /** The span over `base`, or undefined when no edit was made. */
  of(base: PartList): EditedSpan | undefined {
    return this.lo === Infinity ? undefined : { base, lo: this.lo, hi: this.hi, shift: this.shift };
  }
}

const EDITED = new WeakMap<PartList, EditedSpan>();

/** `list` was made from `span.base` by edits within `span`. */
export function noteEdited(list: PartList, span: EditedSpan): void {
  // how the base was made is not asked for again (the base is hashed already): were it kept, every
  // version would keep the one before it alive (as in ./list-changes)
  EDITED.delete(span.base);
  EDITED.set(list, span);
}

/** How `list` was made from another list, when that was noted. */
export function editedFrom(list: PartList): EditedSpan | undefined {
  return EDITED.get(list);
}
