// The clusters routes and proxies name, collected while they are made, so that every cluster a
// route or a tcp/udp proxy names is among those sent (the client is sent clusters before the
// routes and listeners that name them). One EDS cluster per way a Service port is reached: as its
// appProtocol and BackendTLSPolicy say (the base name), over HTTP/2 where a GRPCRoute forces it
// ("/h2"), or without TLS where a passthrough listener forwards the client's own ("/plain"). Each
// reads the endpoints of the base name, so one ClusterLoadAssignment serves every variant.
import type { CompiledBackend, CompiledTable } from '../../compile';
import { clusterName, UNUSABLE_CLUSTER } from '../names';
import { upstreamTls } from './tls';
import { ADS, FILTER, T, type Msg } from './types';
import { endpointsOnce } from '../endpoints';

export interface ClusterUse {
  /** speak HTTP/2 (prior knowledge) whatever the appProtocol says: a GRPCRoute's backends */
  h2?: boolean;
  /** originate no TLS whatever the backend's policy says: a passthrough listener's backends */
  plain?: boolean;
}

export class ClusterSet {
  readonly clusters = new Map<string, Msg>();
  /** by EDS name, the backend whose endpoints it holds (null: the unusable cluster's none) */
  readonly endpoints = new Map<string, CompiledBackend | null>();

  constructor(private readonly table: CompiledTable) {}

  /** The cluster for a usable backend reached as `use` says, added if new. */
  of(b: CompiledBackend, use: ClusterUse = {}): string {
    const base = clusterName(b);
    const h2c = b.appProtocol === 'kubernetes.io/h2c';
    const h2 = h2c || !!use.h2;
    const tls = b.tls && !use.plain ? b.tls : undefined;
    const name = `${base}${h2 && !h2c ? '/h2' : ''}${b.tls && !tls ? '/plain' : ''}`;
    if (!this.clusters.has(name)) {
      const c: Msg = edsCluster(name, base);
      if (h2) {
        c.typed_extension_protocol_options = {
          [FILTER.httpOptions]: { '@type': T.httpOptions, explicit_http_config: { http2_protocol_options: {} } },
        };
      }
      if (tls) c.transport_socket = { name: FILTER.tls, typed_config: upstreamTls(tls, this.table.backendClientCertificate, h2 ? ['h2'] : undefined) };
      this.clusters.set(name, c);
      this.endpoints.set(base, b);
    }
    return name;
  }

  /** The cluster every unusable share goes to: it has no endpoints (sent, so nothing names a cluster the client lacks). */
  unusable(): string {
    if (!this.clusters.has(UNUSABLE_CLUSTER)) {
      this.clusters.set(UNUSABLE_CLUSTER, edsCluster(UNUSABLE_CLUSTER, UNUSABLE_CLUSTER));
      this.endpoints.set(UNUSABLE_CLUSTER, null);
    }
    return UNUSABLE_CLUSTER;
  }
}

function edsCluster(name: string, edsName: string): Msg {
  return {
    name,
    type: 'EDS',
    eds_cluster_config: { eds_config: ADS, service_name: edsName },
    connect_timeout: { seconds: 5 },
    lb_policy: 'ROUND_ROBIN',
  };
}

/** The endpoints of one EDS name: the backend's ready endpoints, once each. */
export function loadAssignment(name: string, b: CompiledBackend | null): Msg {
  const eps = endpointsOnce(b);
  if (eps.length === 0) return { cluster_name: name, endpoints: [] };
  return {
    cluster_name: name,
    endpoints: [{
      locality: {},
      lb_endpoints: eps.map((e) => ({ endpoint: { address: { socket_address: { address: e.address, port_value: e.port } } } })),
    }],
  };
}
