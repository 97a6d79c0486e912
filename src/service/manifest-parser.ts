// Parses apply bodies. Small YAML bodies are parsed inline (milliseconds); large ones in a worker
// thread, because the YAML parser needs about a second per 2 MB: inline, a 32 MiB body would block
// every other request for many seconds. The worker has a heap limit and a time limit; a body that
// exceeds either is refused (413) and the worker is replaced.
import { Worker } from 'node:worker_threads';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { parseManifest, type ManifestFormat } from '../core/apply/manifest';
import { ApplyRejection, type ManifestEntry } from '../core/apply/types';

export interface ParserOptions {
  /** bodies at or above this many bytes go to the worker */
  inlineLimitBytes?: number;
  timeoutMs?: number;
  heapLimitMb?: number;
}

interface Pending {
  resolve: (entries: ManifestEntry[]) => void;
  reject: (e: unknown) => void;
  timer: NodeJS.Timeout;
}

export class ManifestParser {
  private worker: Worker | null = null;
  private pending = new Map<number, Pending>();
  private nextId = 1;
  private readonly inlineLimit: number;
  private readonly timeoutMs: number;
  private readonly heapLimitMb: number;

  constructor(opts: ParserOptions = {}) {
    this.inlineLimit = opts.inlineLimitBytes ?? 256 * 1024;
    this.timeoutMs = opts.timeoutMs ?? 60_000;
    this.heapLimitMb = opts.heapLimitMb ?? 1024;
  }

  async parse(text: string, format: ManifestFormat): Promise<ManifestEntry[]> {
    if (format === 'json' || text.length < this.inlineLimit) return parseManifest(text, format);
    return this.inWorker(text);
  }

  private start(): Worker {
    const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
    const w = new Worker(new URL('./yaml-worker.ts', import.meta.url), {
      execArgv: ['--import', tsx],
      resourceLimits: { maxOldGenerationSizeMb: this.heapLimitMb },
    });
    w.unref();
    w.on('message', (msg: { id: number; ok: boolean; entries?: ManifestEntry[]; status?: number; message?: string; issues?: [] }) => {
      const p = this.pending.get(msg.id);
      if (!p) return;
      this.pending.delete(msg.id);
      clearTimeout(p.timer);
      if (msg.ok) p.resolve(msg.entries!);
      else p.reject(new ApplyRejection((msg.status ?? 400) as 400, msg.message ?? 'the YAML could not be read', msg.issues ?? []));
    });
    const fail = (err: unknown) => {
      if (this.worker === w) this.worker = null;
      const oom = (err as { code?: string })?.code === 'ERR_WORKER_OUT_OF_MEMORY';
      for (const [id, p] of this.pending) {
        clearTimeout(p.timer);
        this.pending.delete(id);
        p.reject(oom
          ? new ApplyRejection(413, `the YAML body needs more than ${this.heapLimitMb} MB to parse; split it into smaller applies`)
          : new ApplyRejection(400, `the YAML could not be read: ${(err as Error)?.message ?? 'the parser stopped'}`));
      }
    };
    w.on('error', fail);
    w.on('exit', (code) => fail(new Error(`the parser exited (${code})`)));
    return w;
  }

  private inWorker(text: string): Promise<ManifestEntry[]> {
    this.worker ??= this.start();
    const w = this.worker;
    const id = this.nextId++;
    return new Promise<ManifestEntry[]>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new ApplyRejection(413, `the YAML body took more than ${Math.round(this.timeoutMs / 1000)} s to parse; split it into smaller applies`));
        // the worker may be stuck on this body: replace it (others waiting on it are failed by its exit)
        if (this.worker === w) this.worker = null;
        void w.terminate();
      }, this.timeoutMs);
      this.pending.set(id, { resolve, reject, timer });
      w.ref();
      w.postMessage({ id, text });
    }).finally(() => {
      if (this.pending.size === 0) w.unref();
    });
  }

  async close(): Promise<void> {
    const w = this.worker;
    this.worker = null;
    if (w) await w.terminate();
  }
}
