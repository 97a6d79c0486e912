// Original file: proto/linkerd/http_route.proto

import type { Headers as _io_linkerd_proxy_http_types_Headers, Headers__Output as _io_linkerd_proxy_http_types_Headers__Output } from '../../../../io/linkerd/proxy/http_types/Headers';

export interface RequestHeaderModifier {
  'add'?: (_io_linkerd_proxy_http_types_Headers | null);
  'set'?: (_io_linkerd_proxy_http_types_Headers | null);
  'remove'?: (string)[];
}

export interface RequestHeaderModifier__Output {
  'add': (_io_linkerd_proxy_http_types_Headers__Output | null);
  'set': (_io_linkerd_proxy_http_types_Headers__Output | null);
  'remove': (string)[];
}
