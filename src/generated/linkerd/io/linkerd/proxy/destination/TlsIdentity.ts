// Original file: proto/linkerd/destination.proto


export interface _io_linkerd_proxy_destination_TlsIdentity_DnsLikeIdentity {
  'name'?: (string);
}

export interface _io_linkerd_proxy_destination_TlsIdentity_DnsLikeIdentity__Output {
  'name': (string);
}

export interface _io_linkerd_proxy_destination_TlsIdentity_UriLikeIdentity {
  'uri'?: (string);
}

export interface _io_linkerd_proxy_destination_TlsIdentity_UriLikeIdentity__Output {
  'uri': (string);
}

export interface TlsIdentity {
  'dns_like_identity'?: (_io_linkerd_proxy_destination_TlsIdentity_DnsLikeIdentity | null);
  'uri_like_identity'?: (_io_linkerd_proxy_destination_TlsIdentity_UriLikeIdentity | null);
  'server_name'?: (_io_linkerd_proxy_destination_TlsIdentity_DnsLikeIdentity | null);
  'strategy'?: "dns_like_identity"|"uri_like_identity";
}

export interface TlsIdentity__Output {
  'dns_like_identity'?: (_io_linkerd_proxy_destination_TlsIdentity_DnsLikeIdentity__Output | null);
  'uri_like_identity'?: (_io_linkerd_proxy_destination_TlsIdentity_UriLikeIdentity__Output | null);
  'server_name': (_io_linkerd_proxy_destination_TlsIdentity_DnsLikeIdentity__Output | null);
  'strategy'?: "dns_like_identity"|"uri_like_identity";
}
