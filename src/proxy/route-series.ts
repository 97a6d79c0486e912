// The metric series of one route on one listener of a Gateway, their label sets made once per table
// and route, not per request. A table swapped out takes its entries with it.
import type { ProxyMetrics } from './metrics';
import type { ServedTable } from './tables';

type RequestLabels = { gateway: string; listener: string; route: string; code: string };

export class RouteSeries {
  private readonly byCode = new Map<number | string, RequestLabels>();
  private readonly routeLabels: { gateway: string; route: string };

  constructor(private readonly metrics: ProxyMetrics, readonly gateway: string, readonly listener: string, readonly route: string) {
    this.routeLabels = { gateway, route };
  }

  /** one request (or upgrade) answered with `code` */
  answered(code: number | string): void {
    let labels = this.byCode.get(code);
    if (!labels) this.byCode.set(code, (labels = { gateway: this.gateway, listener: this.listener, route: this.route, code: String(code) }));
    this.metrics.requests.inc(labels);
  }

  /** a backend's answer head came this long after the try started */
  upstreamSeconds(seconds: number): void {
    this.metrics.upstreamLatency.observe(this.routeLabels, seconds);
  }

  upstreamError(reason: 'timeout' | 'unreachable'): void {
    this.metrics.upstreamErrors.inc({ ...this.routeLabels, reason });
  }

  retried(): void {
    this.metrics.retries.inc(this.routeLabels);
  }
}

/** The series of one Gateway's routes, by table, listener and route. */
export class GatewaySeries {
  private readonly byTable = new WeakMap<ServedTable, Map<string, Map<string, RouteSeries>>>();
  /** before any table */
  private readonly none: Map<string, Map<string, RouteSeries>> = new Map();

  constructor(private readonly metrics: ProxyMetrics, private readonly gateway: string) {}

  of(served: ServedTable | undefined, listener: string, route: string): RouteSeries {
    let byListener = served ? this.byTable.get(served) : this.none;
    if (!byListener) this.byTable.set(served!, (byListener = new Map()));
    let byRoute = byListener.get(listener);
    if (!byRoute) byListener.set(listener, (byRoute = new Map()));
    let s = byRoute.get(route);
    if (!s) byRoute.set(route, (s = new RouteSeries(this.metrics, this.gateway, listener, route)));
    return s;
  }
}
