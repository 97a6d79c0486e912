// Original file: proto/linkerd/outbound.proto

import type { Metadata as _io_linkerd_proxy_meta_Metadata, Metadata__Output as _io_linkerd_proxy_meta_Metadata__Output } from '../../../../io/linkerd/proxy/meta/Metadata';
import type { Invalid as _io_linkerd_proxy_opaque_route_Invalid, Invalid__Output as _io_linkerd_proxy_opaque_route_Invalid__Output } from '../../../../io/linkerd/proxy/opaque_route/Invalid';
import type { Forbidden as _io_linkerd_proxy_opaque_route_Forbidden, Forbidden__Output as _io_linkerd_proxy_opaque_route_Forbidden__Output } from '../../../../io/linkerd/proxy/opaque_route/Forbidden';
import type { Backend as _io_linkerd_proxy_outbound_Backend, Backend__Output as _io_linkerd_proxy_outbound_Backend__Output } from '../../../../io/linkerd/proxy/outbound/Backend';

export interface _io_linkerd_proxy_outbound_OpaqueRoute_Distribution {
  'empty'?: (_io_linkerd_proxy_outbound_OpaqueRoute_Distribution_Empty | null);
  'first_available'?: (_io_linkerd_proxy_outbound_OpaqueRoute_Distribution_FirstAvailable | null);
  'random_available'?: (_io_linkerd_proxy_outbound_OpaqueRoute_Distribution_RandomAvailable | null);
  'kind'?: "empty"|"first_available"|"random_available";
}

export interface _io_linkerd_proxy_outbound_OpaqueRoute_Distribution__Output {
  'empty'?: (_io_linkerd_proxy_outbound_OpaqueRoute_Distribution_Empty__Output | null);
  'first_available'?: (_io_linkerd_proxy_outbound_OpaqueRoute_Distribution_FirstAvailable__Output | null);
  'random_available'?: (_io_linkerd_proxy_outbound_OpaqueRoute_Distribution_RandomAvailable__Output | null);
  'kind'?: "empty"|"first_available"|"random_available";
}

export interface _io_linkerd_proxy_outbound_OpaqueRoute_Distribution_Empty {
}

export interface _io_linkerd_proxy_outbound_OpaqueRoute_Distribution_Empty__Output {
}

export interface _io_linkerd_proxy_outbound_OpaqueRoute_Filter {
  'invalid'?: (_io_linkerd_proxy_opaque_route_Invalid | null);
  'forbidden'?: (_io_linkerd_proxy_opaque_route_Forbidden | null);
  'kind'?: "invalid"|"forbidden";
}

export interface _io_linkerd_proxy_outbound_OpaqueRoute_Filter__Output {
  'invalid'?: (_io_linkerd_proxy_opaque_route_Invalid__Output | null);
  'forbidden'?: (_io_linkerd_proxy_opaque_route_Forbidden__Output | null);
  'kind'?: "invalid"|"forbidden";
}

export interface _io_linkerd_proxy_outbound_OpaqueRoute_Distribution_FirstAvailable {
  'backends'?: (_io_linkerd_proxy_outbound_OpaqueRoute_RouteBackend)[];
}

export interface _io_linkerd_proxy_outbound_OpaqueRoute_Distribution_FirstAvailable__Output {
  'backends': (_io_linkerd_proxy_outbound_OpaqueRoute_RouteBackend__Output)[];
}

export interface _io_linkerd_proxy_outbound_OpaqueRoute_Distribution_RandomAvailable {
  'backends'?: (_io_linkerd_proxy_outbound_OpaqueRoute_WeightedRouteBackend)[];
}

export interface _io_linkerd_proxy_outbound_OpaqueRoute_Distribution_RandomAvailable__Output {
  'backends': (_io_linkerd_proxy_outbound_OpaqueRoute_WeightedRouteBackend__Output)[];
}

export interface _io_linkerd_proxy_outbound_OpaqueRoute_RouteBackend {
  'backend'?: (_io_linkerd_proxy_outbound_Backend | null);
  'filters'?: (_io_linkerd_proxy_outbound_OpaqueRoute_Filter)[];
}

export interface _io_linkerd_proxy_outbound_OpaqueRoute_RouteBackend__Output {
  'backend': (_io_linkerd_proxy_outbound_Backend__Output | null);
  'filters': (_io_linkerd_proxy_outbound_OpaqueRoute_Filter__Output)[];
}

export interface _io_linkerd_proxy_outbound_OpaqueRoute_Rule {
  'backends'?: (_io_linkerd_proxy_outbound_OpaqueRoute_Distribution | null);
  'filters'?: (_io_linkerd_proxy_outbound_OpaqueRoute_Filter)[];
}

export interface _io_linkerd_proxy_outbound_OpaqueRoute_Rule__Output {
  'backends': (_io_linkerd_proxy_outbound_OpaqueRoute_Distribution__Output | null);
  'filters': (_io_linkerd_proxy_outbound_OpaqueRoute_Filter__Output)[];
}

export interface _io_linkerd_proxy_outbound_OpaqueRoute_WeightedRouteBackend {
  'backend'?: (_io_linkerd_proxy_outbound_OpaqueRoute_RouteBackend | null);
  'weight'?: (number);
}

export interface _io_linkerd_proxy_outbound_OpaqueRoute_WeightedRouteBackend__Output {
  'backend': (_io_linkerd_proxy_outbound_OpaqueRoute_RouteBackend__Output | null);
  'weight': (number);
}

export interface OpaqueRoute {
  'metadata'?: (_io_linkerd_proxy_meta_Metadata | null);
  'rules'?: (_io_linkerd_proxy_outbound_OpaqueRoute_Rule)[];
}

export interface OpaqueRoute__Output {
  'metadata': (_io_linkerd_proxy_meta_Metadata__Output | null);
  'rules': (_io_linkerd_proxy_outbound_OpaqueRoute_Rule__Output)[];
}
