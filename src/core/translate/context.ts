// The memo state of translation, owned by one object that the caller keeps between calls. Every
// memo of the core is keyed on object identity (a frozen result, or one of the world's arrays), so
// a caller that passes the same objects again gets the same answers back without recomputing them;
// a fresh context computes everything once and is always correct, just not incremental.
//
// A module declares the memo it needs as a slot (a typed token holding no state) and asks the
// context for its table; the context makes each table on first use.

export const DEFAULT_CAPACITY = 128;

export interface TranslationContextOptions {
  /** how many entries a memo keyed by value (not by object identity) keeps; the oldest go first */
  capacity?: number;
}

export interface MemoSlot<T> {
  readonly name: string;
  make(ctx: TranslationContext): T;
}

export function memoSlot<T>(name: string, make: (ctx: TranslationContext) => T): MemoSlot<T> {
  return { name, make };
}

export class TranslationContext {
  readonly capacity: number;
  private readonly tables = new Map<MemoSlot<unknown>, unknown>();

  constructor(opts: TranslationContextOptions = {}) {
    const capacity = opts.capacity ?? DEFAULT_CAPACITY;
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`capacity must be a positive integer, not ${capacity}`);
    this.capacity = capacity;
  }

  memo<T>(slot: MemoSlot<T>): T {
    let table = this.tables.get(slot as MemoSlot<unknown>);
    if (table === undefined) this.tables.set(slot as MemoSlot<unknown>, (table = slot.make(this)));
    return table as T;
  }

  /** the names of the memos made so far (for measuring what each holds) */
  memoNames(): string[] {
    return [...this.tables.keys()].map((s) => s.name);
  }

  /** forgets memo `name`: the next translation makes it afresh */
  dropMemo(name: string): void {
    for (const slot of this.tables.keys()) if (slot.name === name) this.tables.delete(slot);
  }
}
