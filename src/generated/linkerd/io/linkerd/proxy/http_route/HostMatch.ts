// Original file: proto/linkerd/http_route.proto


export interface _io_linkerd_proxy_http_route_HostMatch_Suffix {
  'reverse_labels'?: (string)[];
}

export interface _io_linkerd_proxy_http_route_HostMatch_Suffix__Output {
  'reverse_labels': (string)[];
}

export interface HostMatch {
  'exact'?: (string);
  'suffix'?: (_io_linkerd_proxy_http_route_HostMatch_Suffix | null);
  'match'?: "exact"|"suffix";
}

export interface HostMatch__Output {
  'exact'?: (string);
  'suffix'?: (_io_linkerd_proxy_http_route_HostMatch_Suffix__Output | null);
  'match'?: "exact"|"suffix";
}
