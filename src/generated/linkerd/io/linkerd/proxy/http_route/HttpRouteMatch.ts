// Original file: proto/linkerd/http_route.proto

import type { PathMatch as _io_linkerd_proxy_http_route_PathMatch, PathMatch__Output as _io_linkerd_proxy_http_route_PathMatch__Output } from '../../../../io/linkerd/proxy/http_route/PathMatch';
import type { HeaderMatch as _io_linkerd_proxy_http_route_HeaderMatch, HeaderMatch__Output as _io_linkerd_proxy_http_route_HeaderMatch__Output } from '../../../../io/linkerd/proxy/http_route/HeaderMatch';
import type { QueryParamMatch as _io_linkerd_proxy_http_route_QueryParamMatch, QueryParamMatch__Output as _io_linkerd_proxy_http_route_QueryParamMatch__Output } from '../../../../io/linkerd/proxy/http_route/QueryParamMatch';
import type { HttpMethod as _io_linkerd_proxy_http_types_HttpMethod, HttpMethod__Output as _io_linkerd_proxy_http_types_HttpMethod__Output } from '../../../../io/linkerd/proxy/http_types/HttpMethod';

export interface HttpRouteMatch {
  'path'?: (_io_linkerd_proxy_http_route_PathMatch | null);
  'headers'?: (_io_linkerd_proxy_http_route_HeaderMatch)[];
  'query_params'?: (_io_linkerd_proxy_http_route_QueryParamMatch)[];
  'method'?: (_io_linkerd_proxy_http_types_HttpMethod | null);
}

export interface HttpRouteMatch__Output {
  'path': (_io_linkerd_proxy_http_route_PathMatch__Output | null);
  'headers': (_io_linkerd_proxy_http_route_HeaderMatch__Output)[];
  'query_params': (_io_linkerd_proxy_http_route_QueryParamMatch__Output)[];
  'method': (_io_linkerd_proxy_http_types_HttpMethod__Output | null);
}
