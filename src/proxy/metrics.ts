// The proxy's Prometheus metrics: requests by listener, route and code, upstream latency, the table
// version each Gateway serves, swaps and the snapshots it could not apply; upstream errors and retries.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export class ProxyMetrics {
  readonly registry = new Registry();
  readonly requests = new Counter({
    name: 'switchyard_proxy_requests_total', help: 'Requests by Gateway, listener, route and status code',
    labelNames: ['gateway', 'listener', 'route', 'code'], registers: [this.registry],
  });
  readonly connections = new Counter({
    name: 'switchyard_proxy_connections_total', help: 'TLS passthrough/terminate and TCP connections, and UDP sessions, by Gateway, listener, route and outcome (forwarded or refused)',
    labelNames: ['gateway', 'listener', 'route', 'protocol', 'outcome'], registers: [this.registry],
  });
  readonly upstreamLatency = new Histogram({
    name: 'switchyard_proxy_upstream_duration_seconds', help: 'Time from sending a request to a backend to its response headers',
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10], labelNames: ['gateway', 'route'], registers: [this.registry],
  });
  readonly tableVersion = new Gauge({
    name: 'switchyard_proxy_table_version', help: 'The snapshot version each Gateway is served from', labelNames: ['gateway'], registers: [this.registry],
  });
  readonly swaps = new Counter({
    name: 'switchyard_proxy_swaps_total', help: 'Route tables swapped in', labelNames: ['gateway'], registers: [this.registry],
  });
  readonly applyErrors = new Counter({
    name: 'switchyard_proxy_apply_errors_total', help: 'Snapshots that could not be applied (the last good table kept)', labelNames: ['gateway'], registers: [this.registry],
  });

  readonly upstreamErrors = new Counter({
    name: 'switchyard_proxy_upstream_errors_total', help: 'Tries that got no answer from a backend, by Gateway, route and reason (unreachable: a connection or TLS error; timeout: the backend timeout)',
    labelNames: ['gateway', 'route', 'reason'], registers: [this.registry],
  });
  readonly retries = new Counter({
    name: 'switchyard_proxy_retries_total', help: 'Tries after the first, by Gateway and route', labelNames: ['gateway', 'route'], registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry });
  }
}
