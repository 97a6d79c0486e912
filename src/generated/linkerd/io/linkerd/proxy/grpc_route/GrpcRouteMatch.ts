// Original file: proto/linkerd/grpc_route.proto

import type { GrpcRpcMatch as _io_linkerd_proxy_grpc_route_GrpcRpcMatch, GrpcRpcMatch__Output as _io_linkerd_proxy_grpc_route_GrpcRpcMatch__Output } from '../../../../io/linkerd/proxy/grpc_route/GrpcRpcMatch';
import type { HeaderMatch as _io_linkerd_proxy_http_route_HeaderMatch, HeaderMatch__Output as _io_linkerd_proxy_http_route_HeaderMatch__Output } from '../../../../io/linkerd/proxy/http_route/HeaderMatch';

export interface GrpcRouteMatch {
  'rpc'?: (_io_linkerd_proxy_grpc_route_GrpcRpcMatch | null);
  'headers'?: (_io_linkerd_proxy_http_route_HeaderMatch)[];
}

export interface GrpcRouteMatch__Output {
  'rpc': (_io_linkerd_proxy_grpc_route_GrpcRpcMatch__Output | null);
  'headers': (_io_linkerd_proxy_http_route_HeaderMatch__Output)[];
}
