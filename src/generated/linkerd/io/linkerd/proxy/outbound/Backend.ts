// Original file: proto/linkerd/outbound.proto

import type { Metadata as _io_linkerd_proxy_meta_Metadata, Metadata__Output as _io_linkerd_proxy_meta_Metadata__Output } from '../../../../io/linkerd/proxy/meta/Metadata';
import type { WeightedAddr as _io_linkerd_proxy_destination_WeightedAddr, WeightedAddr__Output as _io_linkerd_proxy_destination_WeightedAddr__Output } from '../../../../io/linkerd/proxy/destination/WeightedAddr';
import type { Queue as _io_linkerd_proxy_outbound_Queue, Queue__Output as _io_linkerd_proxy_outbound_Queue__Output } from '../../../../io/linkerd/proxy/outbound/Queue';
import type { Duration as _google_protobuf_Duration, Duration__Output as _google_protobuf_Duration__Output } from '../../../../google/protobuf/Duration';

export interface _io_linkerd_proxy_outbound_Backend_BalanceP2c {
  'discovery'?: (_io_linkerd_proxy_outbound_Backend_EndpointDiscovery | null);
  'peak_ewma'?: (_io_linkerd_proxy_outbound_Backend_BalanceP2c_PeakEwma | null);
  'load'?: "peak_ewma";
}

export interface _io_linkerd_proxy_outbound_Backend_BalanceP2c__Output {
  'discovery': (_io_linkerd_proxy_outbound_Backend_EndpointDiscovery__Output | null);
  'peak_ewma'?: (_io_linkerd_proxy_outbound_Backend_BalanceP2c_PeakEwma__Output | null);
  'load'?: "peak_ewma";
}

export interface _io_linkerd_proxy_outbound_Backend_EndpointDiscovery_DestinationGet {
  'path'?: (string);
}

export interface _io_linkerd_proxy_outbound_Backend_EndpointDiscovery_DestinationGet__Output {
  'path': (string);
}

export interface _io_linkerd_proxy_outbound_Backend_EndpointDiscovery {
  'dst'?: (_io_linkerd_proxy_outbound_Backend_EndpointDiscovery_DestinationGet | null);
  'kind'?: "dst";
}

export interface _io_linkerd_proxy_outbound_Backend_EndpointDiscovery__Output {
  'dst'?: (_io_linkerd_proxy_outbound_Backend_EndpointDiscovery_DestinationGet__Output | null);
  'kind'?: "dst";
}

export interface _io_linkerd_proxy_outbound_Backend_BalanceP2c_PeakEwma {
  'default_rtt'?: (_google_protobuf_Duration | null);
  'decay'?: (_google_protobuf_Duration | null);
}

export interface _io_linkerd_proxy_outbound_Backend_BalanceP2c_PeakEwma__Output {
  'default_rtt': (_google_protobuf_Duration__Output | null);
  'decay': (_google_protobuf_Duration__Output | null);
}

export interface Backend {
  'metadata'?: (_io_linkerd_proxy_meta_Metadata | null);
  'forward'?: (_io_linkerd_proxy_destination_WeightedAddr | null);
  'balancer'?: (_io_linkerd_proxy_outbound_Backend_BalanceP2c | null);
  'queue'?: (_io_linkerd_proxy_outbound_Queue | null);
  'kind'?: "forward"|"balancer";
}

export interface Backend__Output {
  'metadata': (_io_linkerd_proxy_meta_Metadata__Output | null);
  'forward'?: (_io_linkerd_proxy_destination_WeightedAddr__Output | null);
  'balancer'?: (_io_linkerd_proxy_outbound_Backend_BalanceP2c__Output | null);
  'queue': (_io_linkerd_proxy_outbound_Queue__Output | null);
  'kind'?: "forward"|"balancer";
}
