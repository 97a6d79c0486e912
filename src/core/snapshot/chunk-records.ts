// A long list's chunks as the table's hash cuts them (./table-hash): where each ends and its digest,
// in blocks that a version shares with the version it was made from. A Gateway of 50,000 routes
// has lists of 150,000 parts, some 7,000 chunks; a version made by a one-route change copied every
// chunk's end and digest (900 KB a change), and kept them until the next change, long enough for
// the engine to move them to the old generation, where only a full collection frees them. Here a
// version copies the blocks its edits reach and shares the others.

const BLOCK = 256;

interface Block {
  /** ends[j]: the position after chunk j's last part, counted from the block's first part */
  readonly ends: readonly number[];
  readonly digests: readonly string[];
  /** the digests joined by tabs, made when first hashed (the same for every version sharing the block) */
  joined?: string;
}

/** How many parts chunk `j` of a block holds. */
const sizeAt = (block: Block, j: number): number => block.ends[j] - (j === 0 ? 0 : block.ends[j - 1]);

/** The first index whose value is greater than `x` in an ascending list (its length when none is). */
function firstAbove(list: readonly number[], x: number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (list[mid] <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export class ChunkRecords {
  constructor(
    private readonly blocks: readonly Block[],
    /** partEnds[b]: the parts in blocks 0 to b */
    private readonly partEnds: readonly number[],
    /** chunkEnds[b]: the chunks in blocks 0 to b */
    private readonly chunkEnds: readonly number[],
  ) {}

  /** how many chunks */
  get count(): number {
    return this.chunkEnds.length ? this.chunkEnds[this.chunkEnds.length - 1] : 0;
  }

  /** how many blocks hold them (for tests: edits must not leave a list in ever more of them) */
  get blockCount(): number {
    return this.blocks.length;
  }

  private partStart(b: number): number {
    return b === 0 ? 0 : this.partEnds[b - 1];
  }

  private chunkStart(b: number): number {
    return b === 0 ? 0 : this.chunkEnds[b - 1];
  }

  /** The first chunk that ends past position `pos` (holds a part at or after it); count when none does. */
  firstEndingAfter(pos: number): number {
    const b = firstAbove(this.partEnds, pos);
    if (b === this.blocks.length) return this.count;
    return this.chunkStart(b) + firstAbove(this.blocks[b].ends, pos - this.partStart(b));
  }

  /** The position after chunk `c`'s last part (0 for c = -1). */
  endOf(c: number): number {
    if (c < 0) return 0;
    const b = firstAbove(this.chunkEnds, c);
    return this.partStart(b) + this.blocks[b].ends[c - this.chunkStart(b)];
  }

  /** The chunk that ends at position `pos`, or -1. */
  endingAt(pos: number): number {
    const c = this.firstEndingAfter(pos - 1);
    return c < this.count && this.endOf(c) === pos ? c : -1;
  }

  /** The digest at chunk `c`. */
  digestOf(c: number): string {
    const b = firstAbove(this.chunkEnds, c);
    return this.blocks[b].digests[c - this.chunkStart(b)];
  }

  /** Each block's digests joined by tabs, in order: the list's digests joined by tabs, in pieces. */
  forEachJoined(fn: (joined: string) => void): void {
    for (const block of this.blocks) fn((block.joined ??= block.digests.join('\t')));
  }

  /** Adds this list's chunks [lo, hi) to `out`: a block that lies inside them whole is shared, not copied. */
  copyTo(out: ChunkRecordsBuilder, lo: number, hi: number): void {
    if (lo >= hi) return;
    for (let b = firstAbove(this.chunkEnds, lo); b < this.blocks.length && this.chunkStart(b) < hi; b++) {
      const start = this.chunkStart(b);
      const block = this.blocks[b];
      const from = Math.max(lo, start) - start;
      const to = Math.min(hi, this.chunkEnds[b]) - start;
      if (from === 0 && to === block.ends.length) out.pushBlock(block);
      else for (let j = from; j < to; j++) out.push(sizeAt(block, j), block.digests[j]);
    }
  }
}

/** Makes a list's chunk records in order: chunks cut anew, and runs taken from another list's. */
export class ChunkRecordsBuilder {
  private blocks: Block[] = [];
  private partEnds: number[] = [];
  private chunkEnds: number[] = [];
  private ends: number[] = [];
  private digests: string[] = [];
  private openParts = 0;
  private closedParts = 0;
  private closedChunks = 0;

  constructor(private readonly blockSize = BLOCK) {}

  /** how many parts the chunks so far hold */
  get parts(): number {
    return this.closedParts + this.openParts;
  }

  /** A chunk of `size` parts. */
  push(size: number, digest: string): void {
    this.ends.push((this.openParts += size));
    this.digests.push(digest);
    if (this.ends.length >= this.blockSize) this.close();
  }

  /** Another list's block whole: shared when the chunks before it end a block, else copied into the open one where it fits. */
  pushBlock(block: Block): void {
    const n = block.ends.length;
    if (this.ends.length > 0 && this.ends.length + n <= this.blockSize) {
      for (let j = 0; j < n; j++) this.push(sizeAt(block, j), block.digests[j]);
      return;
    }
    this.close();
    this.add(block);
  }

  private add(block: Block): void {
    const n = block.ends.length;
    if (n === 0) return;
    this.blocks.push(block);
    this.partEnds.push((this.closedParts += block.ends[n - 1]));
    this.chunkEnds.push((this.closedChunks += n));
  }

  private close(): void {
    if (this.ends.length === 0) return;
    const block: Block = { ends: this.ends, digests: this.digests };
    this.ends = [];
    this.digests = [];
    this.openParts = 0;
    this.add(block);
  }

  done(): ChunkRecords {
    this.close();
    // blocks left part full by edits around them are merged again once there are twice as many as
    // full ones would be: a list edited version after version keeps to a bounded number of them
    if (this.blocks.length > 2 * Math.ceil(this.closedChunks / this.blockSize) + 4) {
      const again = new ChunkRecordsBuilder(this.blockSize);
      for (const block of this.blocks) for (let j = 0; j < block.ends.length; j++) again.push(sizeAt(block, j), block.digests[j]);
      return again.done();
    }
    return new ChunkRecords(this.blocks, this.partEnds, this.chunkEnds);
  }
}
