// Original file: proto/linkerd/destination.proto

import type { WeightedAddrSet as _io_linkerd_proxy_destination_WeightedAddrSet, WeightedAddrSet__Output as _io_linkerd_proxy_destination_WeightedAddrSet__Output } from '../../../../io/linkerd/proxy/destination/WeightedAddrSet';
import type { AddrSet as _io_linkerd_proxy_destination_AddrSet, AddrSet__Output as _io_linkerd_proxy_destination_AddrSet__Output } from '../../../../io/linkerd/proxy/destination/AddrSet';
import type { NoEndpoints as _io_linkerd_proxy_destination_NoEndpoints, NoEndpoints__Output as _io_linkerd_proxy_destination_NoEndpoints__Output } from '../../../../io/linkerd/proxy/destination/NoEndpoints';

export interface Update {
  'add'?: (_io_linkerd_proxy_destination_WeightedAddrSet | null);
  'remove'?: (_io_linkerd_proxy_destination_AddrSet | null);
  'no_endpoints'?: (_io_linkerd_proxy_destination_NoEndpoints | null);
  'update'?: "add"|"remove"|"no_endpoints";
}

export interface Update__Output {
  'add'?: (_io_linkerd_proxy_destination_WeightedAddrSet__Output | null);
  'remove'?: (_io_linkerd_proxy_destination_AddrSet__Output | null);
  'no_endpoints'?: (_io_linkerd_proxy_destination_NoEndpoints__Output | null);
  'update'?: "add"|"remove"|"no_endpoints";
}
