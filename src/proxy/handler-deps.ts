// What the HTTP and upgrade handlers of every port share: the tables, the metrics and log, the
// connections to the endpoints, and the requests in flight.
import type { Tables } from './tables';
import type { ProxyMetrics } from './metrics';
import type { AccessLog } from './access-log';
import type { H2Pool } from './upstream-h2';
import type { UpstreamPools } from './upstream-pools';
import type { InFlight } from './in-flight';

export interface HandlerDeps {
  tables: Tables;
  metrics: ProxyMetrics;
  log: AccessLog;
  /** HTTP/1.1 connections to the endpoints (undici pools, kept alive) */
  pools: UpstreamPools;
  /** requests in flight, for a graceful stop */
  inflight: InFlight;
  /** HTTP/2 sessions to the endpoints that speak it (gRPC, appProtocol kubernetes.io/h2c) */
  h2: H2Pool;
}
