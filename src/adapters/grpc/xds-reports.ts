// What this process's xDS nodes report for proxy-status, written in batches: each node's latest
// report (several streams of one node, or one node reconnecting, coalesce into one row), gathered
// for a moment after a change and written by one statement for every node that changed since, one
// batch at a time, so that ten thousand streams acknowledging a change cost a handful of
// statements, not ten thousand. Every node with an open stream is renewed every `renewMs` in the
// same way (the list drops reports older than its time to live, and a node stuck behind must turn
// STALE). A refused version (a NACK) goes out with the next batch, within `gatherMs` of arriving
// when nothing else is being written.
import type { Logger } from 'pino';
import type { GatewayReport, ReportRow } from '../store/proxy-reports';

export type ReportMany = (items: GatewayReport[]) => Promise<unknown>;
type Report = Omit<ReportRow, 'lastSeen'>;

export interface XdsReportsOptions {
  /** how often every open node's report is renewed */
  renewMs: number;
  /** how long changes are gathered before a batch is written */
  gatherMs: number;
  /** at most this many nodes per statement */
  maxRows: number;
}

export const DEFAULT_REPORTS: XdsReportsOptions = { renewMs: 10_000, gatherMs: 25, maxRows: 2000 };

interface Node { gateway: string; report?: Report; streams: number }

/** One stream's way of reporting its node. */
export interface NodeReporter {
  /** the node's report now, changed since the last (a stream makes one when its status changes) */
  update(report: Report): void;
  /** the stream ended (the node's last report stays listed until its time to live passes) */
  close(): void;
}

export class XdsReports {
  private nodes = new Map<string, Node>();
  private dirty = new Map<string, GatewayReport>();
  private timer: NodeJS.Timeout | undefined;
  private writing = false;
  private closed = false;
  private readonly renew: NodeJS.Timeout;
  /** the batch being written, for close() */
  private inflight: Promise<void> = Promise.resolve();

  constructor(private readonly write: ReportMany, private readonly logger: Logger, private readonly opts: XdsReportsOptions = DEFAULT_REPORTS) {
    this.renew = setInterval(() => {
      for (const [key, n] of this.nodes) if (n.report) this.dirty.set(key, { gateway: n.gateway, report: n.report });
      this.schedule();
    }, opts.renewMs);
    this.renew.unref();
  }

  /** The reporter of one stream of node `proxyId` serving `gateway`. */
  open(gateway: string, proxyId: string): NodeReporter {
    const key = `${gateway}\n${proxyId}`;
    let node = this.nodes.get(key);
    if (!node) this.nodes.set(key, (node = { gateway, streams: 0 }));
    node.streams++;
    let open = true;
    return {
      update: (report) => {
        if (!open || this.closed) return;
        const n = this.nodes.get(key);
        if (!n) return;
        n.report = report;
        this.dirty.set(key, { gateway, report });
        this.schedule();
      },
      close: () => {
        if (!open) return;
        open = false;
        const n = this.nodes.get(key);
        if (n && --n.streams <= 0) this.nodes.delete(key);
      },
    };
  }

  /** Nodes with an open stream, for the metrics and tests. */
  get size(): number {
    return this.nodes.size;
  }

  private schedule(): void {
    if (this.writing || this.timer || this.dirty.size === 0 || this.closed) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.inflight = this.flush();
    }, this.opts.gatherMs);
    this.timer.unref();
  }

  private async flush(): Promise<void> {
    this.writing = true;
    try {
      while (this.dirty.size > 0) {
        const batch: GatewayReport[] = [];
        for (const [key, item] of this.dirty) {
          batch.push(item);
          this.dirty.delete(key);
          if (batch.length >= this.opts.maxRows) break;
        }
        // a failed batch is not retried as such: the next renewal writes every open node again
        await this.write(batch).catch((err: unknown) => this.logger.warn({ err, nodes: batch.length }, 'xDS: recording nodes\' reports failed; the next renewal writes them again'));
      }
    } finally {
      this.writing = false;
    }
    this.schedule();
  }

  /** Stops renewing; writes what is pending. */
  async close(): Promise<void> {
    clearInterval(this.renew);
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.inflight;
    if (this.dirty.size && !this.closed) {
      this.closed = true;
      await this.flush();
    }
    this.closed = true;
  }
}
