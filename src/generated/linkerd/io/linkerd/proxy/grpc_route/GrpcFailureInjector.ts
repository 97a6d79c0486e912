// Original file: proto/linkerd/grpc_route.proto

import type { Ratio as _io_linkerd_proxy_http_route_Ratio, Ratio__Output as _io_linkerd_proxy_http_route_Ratio__Output } from '../../../../io/linkerd/proxy/http_route/Ratio';

export interface GrpcFailureInjector {
  'code'?: (number);
  'message'?: (string);
  'ratio'?: (_io_linkerd_proxy_http_route_Ratio | null);
}

export interface GrpcFailureInjector__Output {
  'code': (number);
  'message': (string);
  'ratio': (_io_linkerd_proxy_http_route_Ratio__Output | null);
}
