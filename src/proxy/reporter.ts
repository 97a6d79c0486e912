// Tells the API what this proxy serves, per Gateway: after every swap or rejected snapshot, and every
// REPORT_EVERY_MS so that the API can tell a quiet proxy from a live one. A report that fails is
// simply sent again next time: it is a statement of the present, not a log.
import type { Tables } from './tables';

const REPORT_EVERY_MS = 10_000;

export class Reporter {
  private timer: NodeJS.Timeout | null = null;
  private readonly pending = new Map<string, Promise<void>>();

  constructor(private readonly o: { url: string; token: string; id: string; tables: Tables; onError?: (gateway: string, e: Error) => void }) {}

  start(): void {
    this.timer = setInterval(() => { for (const s of this.o.tables.all()) this.report(s.gateway); }, REPORT_EVERY_MS);
    this.timer.unref();
    for (const s of this.o.tables.all()) this.report(s.gateway);
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }

  /** Sends the Gateway's state now (one report at a time per Gateway; the latest state wins). */
  report(gateway: string): void {
    const prev = this.pending.get(gateway) ?? Promise.resolve();
    const next = prev.then(() => this.send(gateway)).catch((e) => this.o.onError?.(gateway, e as Error));
    this.pending.set(gateway, next);
  }

  private async send(gateway: string): Promise<void> {
    const s = this.o.tables.get(gateway);
    if (!s) return;
    const [ns, name] = gateway.split('/');
    const body = {
      version: s.served?.version ?? null,
      hash: s.served?.hash ?? null,
      ...(s.rejected && (!s.served || s.rejected.version > s.served.version) ? { error: `version ${s.rejected.version} not applied: ${s.rejected.error}`.slice(0, 1024) } : {}),
    };
    const res = await fetch(`${this.o.url.replace(/\/+$/, '')}/api/v1/namespaces/${encodeURIComponent(ns)}/gateways/${encodeURIComponent(name)}/proxies/${encodeURIComponent(this.o.id)}`, {
      method: 'PUT', headers: { authorization: `Bearer ${this.o.token}`, 'content-type': 'application/json' }, body: JSON.stringify(body), signal: AbortSignal.timeout(5000),
    });
    await res.body?.cancel();
    if (!res.ok) throw new Error(`the API answered the report with ${res.status}`);
  }
}
