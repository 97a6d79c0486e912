// Original file: proto/linkerd/destination.proto

import type { Route as _io_linkerd_proxy_destination_Route, Route__Output as _io_linkerd_proxy_destination_Route__Output } from '../../../../io/linkerd/proxy/destination/Route';
import type { RetryBudget as _io_linkerd_proxy_destination_RetryBudget, RetryBudget__Output as _io_linkerd_proxy_destination_RetryBudget__Output } from '../../../../io/linkerd/proxy/destination/RetryBudget';
import type { WeightedDst as _io_linkerd_proxy_destination_WeightedDst, WeightedDst__Output as _io_linkerd_proxy_destination_WeightedDst__Output } from '../../../../io/linkerd/proxy/destination/WeightedDst';
import type { WeightedAddr as _io_linkerd_proxy_destination_WeightedAddr, WeightedAddr__Output as _io_linkerd_proxy_destination_WeightedAddr__Output } from '../../../../io/linkerd/proxy/destination/WeightedAddr';
import type { Metadata as _io_linkerd_proxy_meta_Metadata, Metadata__Output as _io_linkerd_proxy_meta_Metadata__Output } from '../../../../io/linkerd/proxy/meta/Metadata';

export interface DestinationProfile {
  'routes'?: (_io_linkerd_proxy_destination_Route)[];
  'retry_budget'?: (_io_linkerd_proxy_destination_RetryBudget | null);
  'dst_overrides'?: (_io_linkerd_proxy_destination_WeightedDst)[];
  'opaque_protocol'?: (boolean);
  'fully_qualified_name'?: (string);
  'endpoint'?: (_io_linkerd_proxy_destination_WeightedAddr | null);
  'parent_ref'?: (_io_linkerd_proxy_meta_Metadata | null);
  'profile_ref'?: (_io_linkerd_proxy_meta_Metadata | null);
}

export interface DestinationProfile__Output {
  'routes': (_io_linkerd_proxy_destination_Route__Output)[];
  'retry_budget': (_io_linkerd_proxy_destination_RetryBudget__Output | null);
  'dst_overrides': (_io_linkerd_proxy_destination_WeightedDst__Output)[];
  'opaque_protocol': (boolean);
  'fully_qualified_name': (string);
  'endpoint': (_io_linkerd_proxy_destination_WeightedAddr__Output | null);
  'parent_ref': (_io_linkerd_proxy_meta_Metadata__Output | null);
  'profile_ref': (_io_linkerd_proxy_meta_Metadata__Output | null);
}
