// Original file: proto/linkerd/outbound.proto

import type { ProxyProtocol as _io_linkerd_proxy_outbound_ProxyProtocol, ProxyProtocol__Output as _io_linkerd_proxy_outbound_ProxyProtocol__Output } from '../../../../io/linkerd/proxy/outbound/ProxyProtocol';
import type { Metadata as _io_linkerd_proxy_meta_Metadata, Metadata__Output as _io_linkerd_proxy_meta_Metadata__Output } from '../../../../io/linkerd/proxy/meta/Metadata';

export interface OutboundPolicy {
  'protocol'?: (_io_linkerd_proxy_outbound_ProxyProtocol | null);
  'metadata'?: (_io_linkerd_proxy_meta_Metadata | null);
}

export interface OutboundPolicy__Output {
  'protocol': (_io_linkerd_proxy_outbound_ProxyProtocol__Output | null);
  'metadata': (_io_linkerd_proxy_meta_Metadata__Output | null);
}
