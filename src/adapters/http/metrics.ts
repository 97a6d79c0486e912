// Prometheus metrics: requests by route template, their latency, and event appends.
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export class Metrics {
  readonly registry = new Registry();
  readonly requests = new Counter({
    name: 'switchyard_http_requests_total', help: 'HTTP requests by method, route template and status',
    labelNames: ['method', 'route', 'status'], registers: [this.registry],
  });
  readonly latency = new Histogram({
    name: 'switchyard_http_request_duration_seconds', help: 'HTTP request latency by method and route template',
    labelNames: ['method', 'route'], buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10],
    registers: [this.registry],
  });
  readonly appends = new Counter({
    name: 'switchyard_events_appended_total', help: 'Events appended to the log by kind and type',
    labelNames: ['kind', 'type'], registers: [this.registry],
  });
  readonly sseConnections = new Counter({
    name: 'switchyard_sse_connections_total', help: 'SSE connections opened', labelNames: ['stream'], registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry });
  }
}
