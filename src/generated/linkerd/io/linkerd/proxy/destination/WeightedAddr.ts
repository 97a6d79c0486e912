// Original file: proto/linkerd/destination.proto

import type { TcpAddress as _io_linkerd_proxy_net_TcpAddress, TcpAddress__Output as _io_linkerd_proxy_net_TcpAddress__Output } from '../../../../io/linkerd/proxy/net/TcpAddress';
import type { TlsIdentity as _io_linkerd_proxy_destination_TlsIdentity, TlsIdentity__Output as _io_linkerd_proxy_destination_TlsIdentity__Output } from '../../../../io/linkerd/proxy/destination/TlsIdentity';
import type { ProtocolHint as _io_linkerd_proxy_destination_ProtocolHint, ProtocolHint__Output as _io_linkerd_proxy_destination_ProtocolHint__Output } from '../../../../io/linkerd/proxy/destination/ProtocolHint';
import type { AuthorityOverride as _io_linkerd_proxy_destination_AuthorityOverride, AuthorityOverride__Output as _io_linkerd_proxy_destination_AuthorityOverride__Output } from '../../../../io/linkerd/proxy/destination/AuthorityOverride';
import type { Http2ClientParams as _io_linkerd_proxy_destination_Http2ClientParams, Http2ClientParams__Output as _io_linkerd_proxy_destination_Http2ClientParams__Output } from '../../../../io/linkerd/proxy/destination/Http2ClientParams';
import type { Metadata as _io_linkerd_proxy_meta_Metadata, Metadata__Output as _io_linkerd_proxy_meta_Metadata__Output } from '../../../../io/linkerd/proxy/meta/Metadata';

export interface WeightedAddr {
  'addr'?: (_io_linkerd_proxy_net_TcpAddress | null);
  'weight'?: (number);
  'metric_labels'?: ({[key: string]: string});
  'tls_identity'?: (_io_linkerd_proxy_destination_TlsIdentity | null);
  'protocol_hint'?: (_io_linkerd_proxy_destination_ProtocolHint | null);
  'authority_override'?: (_io_linkerd_proxy_destination_AuthorityOverride | null);
  'http2'?: (_io_linkerd_proxy_destination_Http2ClientParams | null);
  'resource_ref'?: (_io_linkerd_proxy_meta_Metadata | null);
}

export interface WeightedAddr__Output {
  'addr': (_io_linkerd_proxy_net_TcpAddress__Output | null);
  'weight': (number);
  'metric_labels': ({[key: string]: string});
  'tls_identity': (_io_linkerd_proxy_destination_TlsIdentity__Output | null);
  'protocol_hint': (_io_linkerd_proxy_destination_ProtocolHint__Output | null);
  'authority_override': (_io_linkerd_proxy_destination_AuthorityOverride__Output | null);
  'http2': (_io_linkerd_proxy_destination_Http2ClientParams__Output | null);
  'resource_ref': (_io_linkerd_proxy_meta_Metadata__Output | null);
}
