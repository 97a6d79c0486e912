// Original file: proto/linkerd/destination.proto

import type { WeightedAddr as _io_linkerd_proxy_destination_WeightedAddr, WeightedAddr__Output as _io_linkerd_proxy_destination_WeightedAddr__Output } from '../../../../io/linkerd/proxy/destination/WeightedAddr';

export interface WeightedAddrSet {
  'addrs'?: (_io_linkerd_proxy_destination_WeightedAddr)[];
  'metric_labels'?: ({[key: string]: string});
}

export interface WeightedAddrSet__Output {
  'addrs': (_io_linkerd_proxy_destination_WeightedAddr__Output)[];
  'metric_labels': ({[key: string]: string});
}
