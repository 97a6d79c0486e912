// Where a list made from another by a few edits differs from it: spans of positions in the new
// list, outside which its parts are the other's, in the same order. What reads a long list again
// for each version (the hash's chunks, see ./table-hash) reads only around the spans. A route
// whose path changes leaves one place of a list of 150,000 entries and goes to another, often far
// from it: one span from the first edit to the last would cover all between. Pure bookkeeping: the
// merge that edits a list (translate/route-changes.ts) reports its removals and insertions in the
// order it makes them.
import type { PartList } from './table-parts';

export interface Span {
  /** the new list's positions [lo, hi) may differ from the base's; lo === hi: parts went at lo */
  lo: number;
  hi: number;
  /** how many of the base's positions the span stands in for */
  baseLength: number;
}

export interface EditedSpans {
  /** the list the edits were made to */
  base: PartList;
  /** in order, apart from one another; between them (and around them) the base's parts */
  spans: Span[];
}

/** Collects edits to a list, each in the positions of the list as the edits before it left it. */
export class SpanOfEdits {
  private readonly spans: Span[] = [];

  /** The span made of [lo, hi) (the list's positions before an edit) and every span touching it; answers where it went. */
  private absorb(lo: number, hi: number): { at: number; span: Span } {
    let first = 0;
    while (first < this.spans.length && this.spans[first].hi < lo) first++;
    let last = first;
    let from = lo;
    let to = hi;
    let baseLength = 0;
    let covered = 0;
    while (last < this.spans.length && this.spans[last].lo <= hi) {
      const s = this.spans[last];
      from = Math.min(from, s.lo);
      to = Math.max(to, s.hi);
      baseLength += s.baseLength;
      covered += s.hi - s.lo;
      last++;
    }
    // the positions of [from, to) no span covered were the base's, one for one
    const span = { lo: from, hi: to, baseLength: baseLength + (to - from - covered) };
    this.spans.splice(first, last - first, span);
    return { at: first, span };
  }

  private shiftAfter(k: number, by: number): void {
    for (let i = k + 1; i < this.spans.length; i++) {
      this.spans[i].lo += by;
      this.spans[i].hi += by;
    }
  }

  remove(at: number, count: number): void {
    const { at: k, span } = this.absorb(at, at + count);
    span.hi -= count;
    this.shiftAfter(k, -count);
  }

  insert(at: number, count: number): void {
    const { at: k, span } = this.absorb(at, at);
    span.hi += count;
    this.shiftAfter(k, count);
  }

  /** The spans over `base`, or undefined when no edit was made. */
  of(base: PartList): EditedSpans | undefined {
    return this.spans.length ? { base, spans: this.spans.map((s) => ({ ...s })) } : undefined;
  }
}

const EDITED = new WeakMap<PartList, EditedSpans>();

/** `list` was made from `edited.base` by edits within `edited.spans`. */
export function noteEdited(list: PartList, edited: EditedSpans): void {
  // how the base was made is not asked for again (the base is hashed already): were it kept, every
  // version would keep the one before it alive (as in ./list-changes)
  EDITED.delete(edited.base);
  EDITED.set(list, edited);
}

/** How `list` was made from another list, when that was noted. */
export function editedFrom(list: PartList): EditedSpans | undefined {
  return EDITED.get(list);
}
