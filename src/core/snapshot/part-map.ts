// The parts of a list's next version without copying the list's map: the next version takes the
// map over and edits it, and the list it came from is left a view that reads the next version's
// parts except for the ids the edits changed, whose parts it keeps. A table of 50,000 routes has
// maps of 50,000 parts; a change edits a handful of them, and the version before is read again
// only for those ids (a delta from it) or seldom (a delta from further back).
import type { Part, PartList } from './table-parts';

/** A list's parts as they were before its map moved on to `later`: read-only. */
class EarlierParts extends Map<string, Part> {
  constructor(private readonly later: PartList, private readonly was: Map<string, Part | undefined>) {
    super();
  }

  override get(id: string): Part | undefined {
    return this.was.has(id) ? this.was.get(id) : this.later.parts.get(id);
  }

  override has(id: string): boolean {
    return this.was.has(id) ? this.was.get(id) !== undefined : this.later.parts.has(id);
  }

  override get size(): number {
    let n = this.later.parts.size;
    for (const [id, p] of this.was) n += (p !== undefined ? 1 : 0) - (this.later.parts.has(id) ? 1 : 0);
    return n;
  }

  override *entries(): MapIterator<[string, Part]> {
    for (const [id, p] of this.later.parts) if (!this.was.has(id)) yield [id, p];
    for (const [id, p] of this.was) if (p !== undefined) yield [id, p];
  }

  override [Symbol.iterator](): MapIterator<[string, Part]> {
    return this.entries();
  }

  override *keys(): MapIterator<string> {
    for (const [id] of this.entries()) yield id;
  }

  override *values(): MapIterator<Part> {
    for (const [, p] of this.entries()) yield p;
  }

  override forEach(fn: (value: Part, key: string, map: Map<string, Part>) => void, thisArg?: unknown): void {
    for (const [id, p] of this.entries()) fn.call(thisArg, p, id, this);
  }

  override set(): this {
    throw new Error('the parts of an earlier version are not edited');
  }

  override delete(): boolean {
    throw new Error('the parts of an earlier version are not edited');
  }

  override clear(): void {
    throw new Error('the parts of an earlier version are not edited');
  }
}

/** Edits to the parts of a list's next version. */
export interface PartsEdit {
  set(id: string, p: Part): void;
  delete(id: string): boolean;
}

/**
 * The next version of `list`, made by `make` around its parts: they are `list`'s, edited through
 * the answer's `edit`; `list` reads as it did before, whatever is edited. A list whose map has
 * moved on already (an earlier version) gives the next one a copy.
 */
export function nextParts<L extends PartList>(list: PartList, make: (parts: Map<string, Part>) => L): { next: L; edit: PartsEdit } {
  if (list.parts instanceof EarlierParts || list.parts.constructor !== Map) {
    const next = make(new Map(list.parts));
    return { next, edit: { set: (id, p) => void next.parts.set(id, p), delete: (id) => next.parts.delete(id) } };
  }
  const map = list.parts;
  const was = new Map<string, Part | undefined>();
  const next = make(map);
  list.parts = new EarlierParts(next, was);
  const keep = (id: string) => {
    if (!was.has(id)) was.set(id, map.get(id));
  };
  return {
    next,
    edit: {
      set: (id, p) => {
        keep(id);
        map.set(id, p);
      },
      delete: (id) => {
        keep(id);
        return map.delete(id);
      },
    },
  };
}
