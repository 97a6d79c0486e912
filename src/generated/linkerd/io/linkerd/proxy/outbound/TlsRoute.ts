// Original file: proto/linkerd/outbound.proto

import type { Metadata as _io_linkerd_proxy_meta_Metadata, Metadata__Output as _io_linkerd_proxy_meta_Metadata__Output } from '../../../../io/linkerd/proxy/meta/Metadata';
import type { SniMatch as _io_linkerd_proxy_tls_route_SniMatch, SniMatch__Output as _io_linkerd_proxy_tls_route_SniMatch__Output } from '../../../../io/linkerd/proxy/tls_route/SniMatch';
import type { _io_linkerd_proxy_outbound_OpaqueRoute_Distribution, _io_linkerd_proxy_outbound_OpaqueRoute_Distribution__Output } from '../../../../io/linkerd/proxy/outbound/OpaqueRoute';
import type { _io_linkerd_proxy_outbound_OpaqueRoute_Filter, _io_linkerd_proxy_outbound_OpaqueRoute_Filter__Output } from '../../../../io/linkerd/proxy/outbound/OpaqueRoute';

export interface _io_linkerd_proxy_outbound_TlsRoute_Rule {
  'backends'?: (_io_linkerd_proxy_outbound_OpaqueRoute_Distribution | null);
  'filters'?: (_io_linkerd_proxy_outbound_OpaqueRoute_Filter)[];
}

export interface _io_linkerd_proxy_outbound_TlsRoute_Rule__Output {
  'backends': (_io_linkerd_proxy_outbound_OpaqueRoute_Distribution__Output | null);
  'filters': (_io_linkerd_proxy_outbound_OpaqueRoute_Filter__Output)[];
}

export interface TlsRoute {
  'metadata'?: (_io_linkerd_proxy_meta_Metadata | null);
  'snis'?: (_io_linkerd_proxy_tls_route_SniMatch)[];
  'rules'?: (_io_linkerd_proxy_outbound_TlsRoute_Rule)[];
}

export interface TlsRoute__Output {
  'metadata': (_io_linkerd_proxy_meta_Metadata__Output | null);
  'snis': (_io_linkerd_proxy_tls_route_SniMatch__Output)[];
  'rules': (_io_linkerd_proxy_outbound_TlsRoute_Rule__Output)[];
}
