// Original file: proto/linkerd/outbound.proto

import type { Duration as _google_protobuf_Duration, Duration__Output as _google_protobuf_Duration__Output } from '../../../../google/protobuf/Duration';
import type { OpaqueRoute as _io_linkerd_proxy_outbound_OpaqueRoute, OpaqueRoute__Output as _io_linkerd_proxy_outbound_OpaqueRoute__Output } from '../../../../io/linkerd/proxy/outbound/OpaqueRoute';
import type { HttpRoute as _io_linkerd_proxy_outbound_HttpRoute, HttpRoute__Output as _io_linkerd_proxy_outbound_HttpRoute__Output } from '../../../../io/linkerd/proxy/outbound/HttpRoute';
import type { FailureAccrual as _io_linkerd_proxy_outbound_FailureAccrual, FailureAccrual__Output as _io_linkerd_proxy_outbound_FailureAccrual__Output } from '../../../../io/linkerd/proxy/outbound/FailureAccrual';
import type { GrpcRoute as _io_linkerd_proxy_outbound_GrpcRoute, GrpcRoute__Output as _io_linkerd_proxy_outbound_GrpcRoute__Output } from '../../../../io/linkerd/proxy/outbound/GrpcRoute';
import type { TlsRoute as _io_linkerd_proxy_outbound_TlsRoute, TlsRoute__Output as _io_linkerd_proxy_outbound_TlsRoute__Output } from '../../../../io/linkerd/proxy/outbound/TlsRoute';

export interface _io_linkerd_proxy_outbound_ProxyProtocol_Detect {
  'timeout'?: (_google_protobuf_Duration | null);
  'opaque'?: (_io_linkerd_proxy_outbound_ProxyProtocol_Opaque | null);
  'http1'?: (_io_linkerd_proxy_outbound_ProxyProtocol_Http1 | null);
  'http2'?: (_io_linkerd_proxy_outbound_ProxyProtocol_Http2 | null);
}

export interface _io_linkerd_proxy_outbound_ProxyProtocol_Detect__Output {
  'timeout': (_google_protobuf_Duration__Output | null);
  'opaque': (_io_linkerd_proxy_outbound_ProxyProtocol_Opaque__Output | null);
  'http1': (_io_linkerd_proxy_outbound_ProxyProtocol_Http1__Output | null);
  'http2': (_io_linkerd_proxy_outbound_ProxyProtocol_Http2__Output | null);
}

export interface _io_linkerd_proxy_outbound_ProxyProtocol_Grpc {
  'routes'?: (_io_linkerd_proxy_outbound_GrpcRoute)[];
  'failure_accrual'?: (_io_linkerd_proxy_outbound_FailureAccrual | null);
}

export interface _io_linkerd_proxy_outbound_ProxyProtocol_Grpc__Output {
  'routes': (_io_linkerd_proxy_outbound_GrpcRoute__Output)[];
  'failure_accrual': (_io_linkerd_proxy_outbound_FailureAccrual__Output | null);
}

export interface _io_linkerd_proxy_outbound_ProxyProtocol_Http1 {
  'routes'?: (_io_linkerd_proxy_outbound_HttpRoute)[];
  'failure_accrual'?: (_io_linkerd_proxy_outbound_FailureAccrual | null);
}

export interface _io_linkerd_proxy_outbound_ProxyProtocol_Http1__Output {
  'routes': (_io_linkerd_proxy_outbound_HttpRoute__Output)[];
  'failure_accrual': (_io_linkerd_proxy_outbound_FailureAccrual__Output | null);
}

export interface _io_linkerd_proxy_outbound_ProxyProtocol_Http2 {
  'routes'?: (_io_linkerd_proxy_outbound_HttpRoute)[];
  'failure_accrual'?: (_io_linkerd_proxy_outbound_FailureAccrual | null);
}

export interface _io_linkerd_proxy_outbound_ProxyProtocol_Http2__Output {
  'routes': (_io_linkerd_proxy_outbound_HttpRoute__Output)[];
  'failure_accrual': (_io_linkerd_proxy_outbound_FailureAccrual__Output | null);
}

export interface _io_linkerd_proxy_outbound_ProxyProtocol_Opaque {
  'routes'?: (_io_linkerd_proxy_outbound_OpaqueRoute)[];
}

export interface _io_linkerd_proxy_outbound_ProxyProtocol_Opaque__Output {
  'routes': (_io_linkerd_proxy_outbound_OpaqueRoute__Output)[];
}

export interface _io_linkerd_proxy_outbound_ProxyProtocol_Tls {
  'routes'?: (_io_linkerd_proxy_outbound_TlsRoute)[];
}

export interface _io_linkerd_proxy_outbound_ProxyProtocol_Tls__Output {
  'routes': (_io_linkerd_proxy_outbound_TlsRoute__Output)[];
}

export interface ProxyProtocol {
  'detect'?: (_io_linkerd_proxy_outbound_ProxyProtocol_Detect | null);
  'opaque'?: (_io_linkerd_proxy_outbound_ProxyProtocol_Opaque | null);
  'http1'?: (_io_linkerd_proxy_outbound_ProxyProtocol_Http1 | null);
  'http2'?: (_io_linkerd_proxy_outbound_ProxyProtocol_Http2 | null);
  'grpc'?: (_io_linkerd_proxy_outbound_ProxyProtocol_Grpc | null);
  'tls'?: (_io_linkerd_proxy_outbound_ProxyProtocol_Tls | null);
  'kind'?: "detect"|"opaque"|"http1"|"http2"|"grpc"|"tls";
}

export interface ProxyProtocol__Output {
  'detect'?: (_io_linkerd_proxy_outbound_ProxyProtocol_Detect__Output | null);
  'opaque'?: (_io_linkerd_proxy_outbound_ProxyProtocol_Opaque__Output | null);
  'http1'?: (_io_linkerd_proxy_outbound_ProxyProtocol_Http1__Output | null);
  'http2'?: (_io_linkerd_proxy_outbound_ProxyProtocol_Http2__Output | null);
  'grpc'?: (_io_linkerd_proxy_outbound_ProxyProtocol_Grpc__Output | null);
  'tls'?: (_io_linkerd_proxy_outbound_ProxyProtocol_Tls__Output | null);
  'kind'?: "detect"|"opaque"|"http1"|"http2"|"grpc"|"tls";
}
