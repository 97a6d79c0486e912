// Original file: proto/linkerd/tls_route.proto


export interface _io_linkerd_proxy_tls_route_SniMatch_Suffix {
  'reverse_labels'?: (string)[];
}

export interface _io_linkerd_proxy_tls_route_SniMatch_Suffix__Output {
  'reverse_labels': (string)[];
}

export interface SniMatch {
  'exact'?: (string);
  'suffix'?: (_io_linkerd_proxy_tls_route_SniMatch_Suffix | null);
  'match'?: "exact"|"suffix";
}

export interface SniMatch__Output {
  'exact'?: (string);
  'suffix'?: (_io_linkerd_proxy_tls_route_SniMatch_Suffix__Output | null);
  'match'?: "exact"|"suffix";
}
