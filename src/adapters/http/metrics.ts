// The API's Prometheus metrics: requests by route template and answer code, their latency, event
// appends and SSE streams. `code` is the answer's status, as Prometheus' own HTTP metrics name it.
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { registerProcessMetrics } from '../metrics/process';

export class Metrics {
  readonly registry = new Registry();
  /** what /metrics serves: this registry, and the in-process worker's when there is one */
  private served: Registry = this.registry;
  private readonly texts: (() => Promise<string>)[] = [];
  readonly requests = new Counter({
    name: 'switchyard_http_requests_total', help: 'HTTP requests by method, route template and answer code',
    labelNames: ['method', 'route', 'code'], registers: [this.registry],
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
  readonly sseSubscribers = new Gauge({
    name: 'switchyard_sse_subscribers', help: 'SSE connections open now, by stream (events feed or snapshot watch)',
    labelNames: ['stream'], registers: [this.registry],
  });

  readonly xdsStreams = new Gauge({
    name: 'switchyard_xds_streams', help: 'xDS (ADS) streams open now, by variant (sotw, delta)', labelNames: ['variant'], registers: [this.registry],
  });
  readonly xdsResponses = new Counter({
    name: 'switchyard_xds_responses_total', help: 'xDS responses sent, by variant and resource type', labelNames: ['variant', 'type'], registers: [this.registry],
  });
  readonly xdsBytes = new Counter({
    name: 'switchyard_xds_response_bytes_total', help: 'Bytes of encoded resources sent to xDS clients, by variant', labelNames: ['variant'], registers: [this.registry],
  });
  readonly xdsAnswers = new Counter({
    name: 'switchyard_xds_answers_total', help: 'ACKs and NACKs xDS clients sent, by resource type', labelNames: ['type', 'answer'], registers: [this.registry],
  });
  readonly xdsPush = new Histogram({
    name: 'switchyard_xds_push_duration_seconds', help: 'From a new table version reaching a stream to its responses written (table load, translation, encoding)',
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5], registers: [this.registry],
  });

  /** What the xDS server counts (src/adapters/grpc/xds-server.ts). */
  readonly xds = {
    streamOpened: (variant: 'sotw' | 'delta') => {
      this.xdsStreams.inc({ variant });
      return () => this.xdsStreams.dec({ variant });
    },
    responded: (variant: 'sotw' | 'delta', typeUrl: string, bytes: number) => {
      this.xdsResponses.inc({ variant, type: typeUrl.slice(typeUrl.lastIndexOf('.') + 1) });
      this.xdsBytes.inc({ variant }, bytes);
    },
    answered: (type: string, acked: boolean) => this.xdsAnswers.inc({ type, answer: acked ? 'ACK' : 'NACK' }),
    pushed: (seconds: number) => this.xdsPush.observe(seconds),
  };

  constructor() {
    registerProcessMetrics(this.registry);
  }

  /** An SSE stream opened: counted, and open until the returned function is called. */
  sseOpened(stream: 'events' | 'snapshot'): () => void {
    this.sseConnections.inc({ stream });
    this.sseSubscribers.inc({ stream });
    return () => this.sseSubscribers.dec({ stream });
  }

  /** Serve another registry's metrics (the in-process worker's) beside these. */
  include(other: Registry): void {
    this.served = Registry.merge([this.registry, other]);
  }

  /** Serve metrics another thread gives in the text format (the worker thread's) after these. */
  includeText(source: () => Promise<string>): void {
    this.texts.push(source);
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  async text(): Promise<string> {
    const [own, ...others] = await Promise.all([this.served.metrics(), ...this.texts.map((t) => t())]);
    return [own, ...others.filter(Boolean)].map((t) => (t.endsWith('\n') ? t : `${t}\n`)).join('');
  }
}
