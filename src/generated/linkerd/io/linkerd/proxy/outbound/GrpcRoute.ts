// Original file: proto/linkerd/outbound.proto

import type { Metadata as _io_linkerd_proxy_meta_Metadata, Metadata__Output as _io_linkerd_proxy_meta_Metadata__Output } from '../../../../io/linkerd/proxy/meta/Metadata';
import type { HostMatch as _io_linkerd_proxy_http_route_HostMatch, HostMatch__Output as _io_linkerd_proxy_http_route_HostMatch__Output } from '../../../../io/linkerd/proxy/http_route/HostMatch';
import type { GrpcRouteMatch as _io_linkerd_proxy_grpc_route_GrpcRouteMatch, GrpcRouteMatch__Output as _io_linkerd_proxy_grpc_route_GrpcRouteMatch__Output } from '../../../../io/linkerd/proxy/grpc_route/GrpcRouteMatch';
import type { Timeouts as _io_linkerd_proxy_http_route_Timeouts, Timeouts__Output as _io_linkerd_proxy_http_route_Timeouts__Output } from '../../../../io/linkerd/proxy/http_route/Timeouts';
import type { GrpcFailureInjector as _io_linkerd_proxy_grpc_route_GrpcFailureInjector, GrpcFailureInjector__Output as _io_linkerd_proxy_grpc_route_GrpcFailureInjector__Output } from '../../../../io/linkerd/proxy/grpc_route/GrpcFailureInjector';
import type { RequestHeaderModifier as _io_linkerd_proxy_http_route_RequestHeaderModifier, RequestHeaderModifier__Output as _io_linkerd_proxy_http_route_RequestHeaderModifier__Output } from '../../../../io/linkerd/proxy/http_route/RequestHeaderModifier';
import type { Duration as _google_protobuf_Duration, Duration__Output as _google_protobuf_Duration__Output } from '../../../../google/protobuf/Duration';
import type { ExponentialBackoff as _io_linkerd_proxy_outbound_ExponentialBackoff, ExponentialBackoff__Output as _io_linkerd_proxy_outbound_ExponentialBackoff__Output } from '../../../../io/linkerd/proxy/outbound/ExponentialBackoff';
import type { Backend as _io_linkerd_proxy_outbound_Backend, Backend__Output as _io_linkerd_proxy_outbound_Backend__Output } from '../../../../io/linkerd/proxy/outbound/Backend';

export interface _io_linkerd_proxy_outbound_GrpcRoute_Retry_Conditions {
  'cancelled'?: (boolean);
  'deadine_exceeded'?: (boolean);
  'resource_exhausted'?: (boolean);
  'internal'?: (boolean);
  'unavailable'?: (boolean);
}

export interface _io_linkerd_proxy_outbound_GrpcRoute_Retry_Conditions__Output {
  'cancelled': (boolean);
  'deadine_exceeded': (boolean);
  'resource_exhausted': (boolean);
  'internal': (boolean);
  'unavailable': (boolean);
}

export interface _io_linkerd_proxy_outbound_GrpcRoute_Distribution {
  'empty'?: (_io_linkerd_proxy_outbound_GrpcRoute_Distribution_Empty | null);
  'first_available'?: (_io_linkerd_proxy_outbound_GrpcRoute_Distribution_FirstAvailable | null);
  'random_available'?: (_io_linkerd_proxy_outbound_GrpcRoute_Distribution_RandomAvailable | null);
  'kind'?: "empty"|"first_available"|"random_available";
}

export interface _io_linkerd_proxy_outbound_GrpcRoute_Distribution__Output {
  'empty'?: (_io_linkerd_proxy_outbound_GrpcRoute_Distribution_Empty__Output | null);
  'first_available'?: (_io_linkerd_proxy_outbound_GrpcRoute_Distribution_FirstAvailable__Output | null);
  'random_available'?: (_io_linkerd_proxy_outbound_GrpcRoute_Distribution_RandomAvailable__Output | null);
  'kind'?: "empty"|"first_available"|"random_available";
}

export interface _io_linkerd_proxy_outbound_GrpcRoute_Distribution_Empty {
}

export interface _io_linkerd_proxy_outbound_GrpcRoute_Distribution_Empty__Output {
}

export interface _io_linkerd_proxy_outbound_GrpcRoute_Filter {
  'failure_injector'?: (_io_linkerd_proxy_grpc_route_GrpcFailureInjector | null);
  'request_header_modifier'?: (_io_linkerd_proxy_http_route_RequestHeaderModifier | null);
  'kind'?: "failure_injector"|"request_header_modifier";
}

export interface _io_linkerd_proxy_outbound_GrpcRoute_Filter__Output {
  'failure_injector'?: (_io_linkerd_proxy_grpc_route_GrpcFailureInjector__Output | null);
  'request_header_modifier'?: (_io_linkerd_proxy_http_route_RequestHeaderModifier__Output | null);
  'kind'?: "failure_injector"|"request_header_modifier";
}

export interface _io_linkerd_proxy_outbound_GrpcRoute_Distribution_FirstAvailable {
  'backends'?: (_io_linkerd_proxy_outbound_GrpcRoute_RouteBackend)[];
}

export interface _io_linkerd_proxy_outbound_GrpcRoute_Distribution_FirstAvailable__Output {
  'backends': (_io_linkerd_proxy_outbound_GrpcRoute_RouteBackend__Output)[];
}

export interface _io_linkerd_proxy_outbound_GrpcRoute_Distribution_RandomAvailable {
  'backends'?: (_io_linkerd_proxy_outbound_GrpcRoute_WeightedRouteBackend)[];
}

export interface _io_linkerd_proxy_outbound_GrpcRoute_Distribution_RandomAvailable__Output {
  'backends': (_io_linkerd_proxy_outbound_GrpcRoute_WeightedRouteBackend__Output)[];
}

export interface _io_linkerd_proxy_outbound_GrpcRoute_Retry {
  'max_retries'?: (number);
  'max_request_bytes'?: (number);
  'conditions'?: (_io_linkerd_proxy_outbound_GrpcRoute_Retry_Conditions | null);
  'timeout'?: (_google_protobuf_Duration | null);
  'backoff'?: (_io_linkerd_proxy_outbound_ExponentialBackoff | null);
}

export interface _io_linkerd_proxy_outbound_GrpcRoute_Retry__Output {
  'max_retries': (number);
  'max_request_bytes': (number);
  'conditions': (_io_linkerd_proxy_outbound_GrpcRoute_Retry_Conditions__Output | null);
  'timeout': (_google_protobuf_Duration__Output | null);
  'backoff': (_io_linkerd_proxy_outbound_ExponentialBackoff__Output | null);
}

export interface _io_linkerd_proxy_outbound_GrpcRoute_RouteBackend {
  'backend'?: (_io_linkerd_proxy_outbound_Backend | null);
  'filters'?: (_io_linkerd_proxy_outbound_GrpcRoute_Filter)[];
}

export interface _io_linkerd_proxy_outbound_GrpcRoute_RouteBackend__Output {
  'backend': (_io_linkerd_proxy_outbound_Backend__Output | null);
  'filters': (_io_linkerd_proxy_outbound_GrpcRoute_Filter__Output)[];
}

export interface _io_linkerd_proxy_outbound_GrpcRoute_Rule {
  'matches'?: (_io_linkerd_proxy_grpc_route_GrpcRouteMatch)[];
  'filters'?: (_io_linkerd_proxy_outbound_GrpcRoute_Filter)[];
  'backends'?: (_io_linkerd_proxy_outbound_GrpcRoute_Distribution | null);
  'timeouts'?: (_io_linkerd_proxy_http_route_Timeouts | null);
  'retry'?: (_io_linkerd_proxy_outbound_GrpcRoute_Retry | null);
  'allow_l5d_request_headers'?: (boolean);
}

export interface _io_linkerd_proxy_outbound_GrpcRoute_Rule__Output {
  'matches': (_io_linkerd_proxy_grpc_route_GrpcRouteMatch__Output)[];
  'filters': (_io_linkerd_proxy_outbound_GrpcRoute_Filter__Output)[];
  'backends': (_io_linkerd_proxy_outbound_GrpcRoute_Distribution__Output | null);
  'timeouts': (_io_linkerd_proxy_http_route_Timeouts__Output | null);
  'retry': (_io_linkerd_proxy_outbound_GrpcRoute_Retry__Output | null);
  'allow_l5d_request_headers': (boolean);
}

export interface _io_linkerd_proxy_outbound_GrpcRoute_WeightedRouteBackend {
  'backend'?: (_io_linkerd_proxy_outbound_GrpcRoute_RouteBackend | null);
  'weight'?: (number);
}

export interface _io_linkerd_proxy_outbound_GrpcRoute_WeightedRouteBackend__Output {
  'backend': (_io_linkerd_proxy_outbound_GrpcRoute_RouteBackend__Output | null);
  'weight': (number);
}

export interface GrpcRoute {
  'metadata'?: (_io_linkerd_proxy_meta_Metadata | null);
  'hosts'?: (_io_linkerd_proxy_http_route_HostMatch)[];
  'rules'?: (_io_linkerd_proxy_outbound_GrpcRoute_Rule)[];
}

export interface GrpcRoute__Output {
  'metadata': (_io_linkerd_proxy_meta_Metadata__Output | null);
  'hosts': (_io_linkerd_proxy_http_route_HostMatch__Output)[];
  'rules': (_io_linkerd_proxy_outbound_GrpcRoute_Rule__Output)[];
}
