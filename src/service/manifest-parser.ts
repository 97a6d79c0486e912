// Parses apply bodies. Small YAML bodies are parsed inline (milliseconds). Large ones are cut at
// document markers and parsed by a small pool of worker threads, one piece each: the YAML parser
// needs about a second per 2 MB, so inline a large body would stall every other request, and the
// pieces parse in parallel on the machine's cores. Each worker has a heap limit and each piece a
// time limit; a body that exceeds either is refused (413) and the worker replaced.
import type { Worker } from 'node:worker_threads';
import { availableParallelism } from 'node:os';
import { joinYamlChunks, parseManifest, splitYamlDocuments, type ManifestFormat, type YamlChunk } from '../core/apply/manifest';
import { ApplyRejection, type ManifestEntry } from '../core/apply/types';
import { spawnThread } from '../runtime/threads';

export interface ParserOptions {
  /** bodies at or above this many characters go to the workers */
  inlineLimit?: number;
  workers?: number;
  timeoutMs?: number;
  heapLimitMb?: number;
}

function spawnParser(resourceLimits: { maxOldGenerationSizeMb: number }): Worker {
  return spawnThread('yamlWorker', { resourceLimits });
}

interface Pending {
  resolve: (chunk: YamlChunk) => void;
  reject: (e: unknown) => void;
  timer: NodeJS.Timeout;
}

class ParseWorker {
  private worker: Worker | null = null;
  private pending = new Map<number, Pending>();
  private nextId = 1;

  constructor(private readonly timeoutMs: number, private readonly heapLimitMb: number) {}

  private start(): Worker {
    const w = spawnParser({ maxOldGenerationSizeMb: this.heapLimitMb });
    w.unref();
    w.on('message', (msg: { id: number; chunk?: YamlChunk; error?: string }) => {
      const p = this.pending.get(msg.id);
      if (!p) return;
      this.settle(msg.id, p);
      if (msg.chunk) p.resolve(msg.chunk);
      else p.reject(new ApplyRejection(400, `the YAML could not be read: ${msg.error}`));
    });
    const fail = (err: unknown) => {
      if (this.worker === w) this.worker = null;
      const oom = (err as { code?: string })?.code === 'ERR_WORKER_OUT_OF_MEMORY';
      for (const [id, p] of this.pending) {
        this.settle(id, p);
        p.reject(oom
          ? new ApplyRejection(413, `the YAML body needs more than ${this.heapLimitMb} MB to parse; split it into smaller applies`)
          : new ApplyRejection(400, `the YAML could not be read: ${(err as Error)?.message ?? 'the parser stopped'}`));
      }
    };
    // an answer that cannot be copied back names no request: fail them all rather than let each wait out its time limit
    w.on('messageerror', () => {
      if (this.worker === w) this.worker = null;
      void w.terminate();
      for (const [id, p] of this.pending) {
        this.settle(id, p);
        p.reject(new ApplyRejection(400, 'the YAML could not be read: the parser\'s result could not be passed back (is it nested too deeply?)'));
      }
    });
    w.on('error', fail);
    w.on('exit', (code) => fail(new Error(`the parser exited (${code})`)));
    return w;
  }

  private settle(id: number, p: Pending): void {
    clearTimeout(p.timer);
    this.pending.delete(id);
    if (this.pending.size === 0) this.worker?.unref();
  }

  parse(text: string, lineOffset: number): Promise<YamlChunk> {
    this.worker ??= this.start();
    const w = this.worker;
    const id = this.nextId++;
    return new Promise<YamlChunk>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new ApplyRejection(413, `the YAML body took more than ${Math.round(this.timeoutMs / 1000)} s to parse; split it into smaller applies`));
        // the worker may be stuck on this piece: replace it (others waiting on it fail with its exit)
        if (this.worker === w) this.worker = null;
        void w.terminate();
      }, this.timeoutMs);
      this.pending.set(id, { resolve, reject, timer });
      w.ref();
      w.postMessage({ id, text, lineOffset });
    });
  }

  async close(): Promise<void> {
    const w = this.worker;
    this.worker = null;
    if (w) await w.terminate();
  }
}

export class ManifestParser {
  private readonly workers: ParseWorker[];
  private readonly inlineLimit: number;

  constructor(opts: ParserOptions = {}) {
    this.inlineLimit = opts.inlineLimit ?? 256 * 1024;
    const n = Math.max(1, opts.workers ?? Math.min(2, availableParallelism()));
    this.workers = Array.from({ length: n }, () => new ParseWorker(opts.timeoutMs ?? 60_000, opts.heapLimitMb ?? 1024));
  }

  async parse(text: string, format: ManifestFormat): Promise<ManifestEntry[]> {
    if (format === 'json' || text.length < this.inlineLimit) return parseManifest(text, format);
    const pieces = splitYamlDocuments(text, this.workers.length);
    const chunks = await Promise.all(pieces.map((p, i) => this.workers[i % this.workers.length].parse(p.text, p.lineOffset)));
    return joinYamlChunks(chunks);
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.close()));
  }
}
