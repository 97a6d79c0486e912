// Original file: proto/linkerd/http_route.proto

import type { Scheme as _io_linkerd_proxy_http_types_Scheme, Scheme__Output as _io_linkerd_proxy_http_types_Scheme__Output } from '../../../../io/linkerd/proxy/http_types/Scheme';
import type { PathModifier as _io_linkerd_proxy_http_route_PathModifier, PathModifier__Output as _io_linkerd_proxy_http_route_PathModifier__Output } from '../../../../io/linkerd/proxy/http_route/PathModifier';

export interface RequestRedirect {
  'scheme'?: (_io_linkerd_proxy_http_types_Scheme | null);
  'host'?: (string);
  'path'?: (_io_linkerd_proxy_http_route_PathModifier | null);
  'port'?: (number);
  'status'?: (number);
}

export interface RequestRedirect__Output {
  'scheme': (_io_linkerd_proxy_http_types_Scheme__Output | null);
  'host': (string);
  'path': (_io_linkerd_proxy_http_route_PathModifier__Output | null);
  'port': (number);
  'status': (number);
}
