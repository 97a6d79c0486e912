// Original file: proto/linkerd/outbound.proto

import type { Metadata as _io_linkerd_proxy_meta_Metadata, Metadata__Output as _io_linkerd_proxy_meta_Metadata__Output } from '../../../../io/linkerd/proxy/meta/Metadata';
import type { HostMatch as _io_linkerd_proxy_http_route_HostMatch, HostMatch__Output as _io_linkerd_proxy_http_route_HostMatch__Output } from '../../../../io/linkerd/proxy/http_route/HostMatch';
import type { HttpRouteMatch as _io_linkerd_proxy_http_route_HttpRouteMatch, HttpRouteMatch__Output as _io_linkerd_proxy_http_route_HttpRouteMatch__Output } from '../../../../io/linkerd/proxy/http_route/HttpRouteMatch';
import type { Timeouts as _io_linkerd_proxy_http_route_Timeouts, Timeouts__Output as _io_linkerd_proxy_http_route_Timeouts__Output } from '../../../../io/linkerd/proxy/http_route/Timeouts';
import type { HttpFailureInjector as _io_linkerd_proxy_http_route_HttpFailureInjector, HttpFailureInjector__Output as _io_linkerd_proxy_http_route_HttpFailureInjector__Output } from '../../../../io/linkerd/proxy/http_route/HttpFailureInjector';
import type { RequestHeaderModifier as _io_linkerd_proxy_http_route_RequestHeaderModifier, RequestHeaderModifier__Output as _io_linkerd_proxy_http_route_RequestHeaderModifier__Output } from '../../../../io/linkerd/proxy/http_route/RequestHeaderModifier';
import type { RequestRedirect as _io_linkerd_proxy_http_route_RequestRedirect, RequestRedirect__Output as _io_linkerd_proxy_http_route_RequestRedirect__Output } from '../../../../io/linkerd/proxy/http_route/RequestRedirect';
import type { ResponseHeaderModifier as _io_linkerd_proxy_http_route_ResponseHeaderModifier, ResponseHeaderModifier__Output as _io_linkerd_proxy_http_route_ResponseHeaderModifier__Output } from '../../../../io/linkerd/proxy/http_route/ResponseHeaderModifier';
import type { Duration as _google_protobuf_Duration, Duration__Output as _google_protobuf_Duration__Output } from '../../../../google/protobuf/Duration';
import type { ExponentialBackoff as _io_linkerd_proxy_outbound_ExponentialBackoff, ExponentialBackoff__Output as _io_linkerd_proxy_outbound_ExponentialBackoff__Output } from '../../../../io/linkerd/proxy/outbound/ExponentialBackoff';
import type { Backend as _io_linkerd_proxy_outbound_Backend, Backend__Output as _io_linkerd_proxy_outbound_Backend__Output } from '../../../../io/linkerd/proxy/outbound/Backend';

export interface _io_linkerd_proxy_outbound_HttpRoute_Retry_Conditions {
  'status_ranges'?: (_io_linkerd_proxy_outbound_HttpRoute_Retry_Conditions_StatusRange)[];
}

export interface _io_linkerd_proxy_outbound_HttpRoute_Retry_Conditions__Output {
  'status_ranges': (_io_linkerd_proxy_outbound_HttpRoute_Retry_Conditions_StatusRange__Output)[];
}

export interface _io_linkerd_proxy_outbound_HttpRoute_Distribution {
  'empty'?: (_io_linkerd_proxy_outbound_HttpRoute_Distribution_Empty | null);
  'first_available'?: (_io_linkerd_proxy_outbound_HttpRoute_Distribution_FirstAvailable | null);
  'random_available'?: (_io_linkerd_proxy_outbound_HttpRoute_Distribution_RandomAvailable | null);
  'kind'?: "empty"|"first_available"|"random_available";
}

export interface _io_linkerd_proxy_outbound_HttpRoute_Distribution__Output {
  'empty'?: (_io_linkerd_proxy_outbound_HttpRoute_Distribution_Empty__Output | null);
  'first_available'?: (_io_linkerd_proxy_outbound_HttpRoute_Distribution_FirstAvailable__Output | null);
  'random_available'?: (_io_linkerd_proxy_outbound_HttpRoute_Distribution_RandomAvailable__Output | null);
  'kind'?: "empty"|"first_available"|"random_available";
}

export interface _io_linkerd_proxy_outbound_HttpRoute_Distribution_Empty {
}

export interface _io_linkerd_proxy_outbound_HttpRoute_Distribution_Empty__Output {
}

export interface _io_linkerd_proxy_outbound_HttpRoute_Filter {
  'failure_injector'?: (_io_linkerd_proxy_http_route_HttpFailureInjector | null);
  'request_header_modifier'?: (_io_linkerd_proxy_http_route_RequestHeaderModifier | null);
  'redirect'?: (_io_linkerd_proxy_http_route_RequestRedirect | null);
  'response_header_modifier'?: (_io_linkerd_proxy_http_route_ResponseHeaderModifier | null);
  'kind'?: "failure_injector"|"request_header_modifier"|"redirect"|"response_header_modifier";
}

export interface _io_linkerd_proxy_outbound_HttpRoute_Filter__Output {
  'failure_injector'?: (_io_linkerd_proxy_http_route_HttpFailureInjector__Output | null);
  'request_header_modifier'?: (_io_linkerd_proxy_http_route_RequestHeaderModifier__Output | null);
  'redirect'?: (_io_linkerd_proxy_http_route_RequestRedirect__Output | null);
  'response_header_modifier'?: (_io_linkerd_proxy_http_route_ResponseHeaderModifier__Output | null);
  'kind'?: "failure_injector"|"request_header_modifier"|"redirect"|"response_header_modifier";
}

export interface _io_linkerd_proxy_outbound_HttpRoute_Distribution_FirstAvailable {
  'backends'?: (_io_linkerd_proxy_outbound_HttpRoute_RouteBackend)[];
}

export interface _io_linkerd_proxy_outbound_HttpRoute_Distribution_FirstAvailable__Output {
  'backends': (_io_linkerd_proxy_outbound_HttpRoute_RouteBackend__Output)[];
}

export interface _io_linkerd_proxy_outbound_HttpRoute_Distribution_RandomAvailable {
  'backends'?: (_io_linkerd_proxy_outbound_HttpRoute_WeightedRouteBackend)[];
}

export interface _io_linkerd_proxy_outbound_HttpRoute_Distribution_RandomAvailable__Output {
  'backends': (_io_linkerd_proxy_outbound_HttpRoute_WeightedRouteBackend__Output)[];
}

export interface _io_linkerd_proxy_outbound_HttpRoute_Retry {
  'max_retries'?: (number);
  'max_request_bytes'?: (number);
  'conditions'?: (_io_linkerd_proxy_outbound_HttpRoute_Retry_Conditions | null);
  'timeout'?: (_google_protobuf_Duration | null);
  'backoff'?: (_io_linkerd_proxy_outbound_ExponentialBackoff | null);
}

export interface _io_linkerd_proxy_outbound_HttpRoute_Retry__Output {
  'max_retries': (number);
  'max_request_bytes': (number);
  'conditions': (_io_linkerd_proxy_outbound_HttpRoute_Retry_Conditions__Output | null);
  'timeout': (_google_protobuf_Duration__Output | null);
  'backoff': (_io_linkerd_proxy_outbound_ExponentialBackoff__Output | null);
}

export interface _io_linkerd_proxy_outbound_HttpRoute_RouteBackend {
  'backend'?: (_io_linkerd_proxy_outbound_Backend | null);
  'filters'?: (_io_linkerd_proxy_outbound_HttpRoute_Filter)[];
}

export interface _io_linkerd_proxy_outbound_HttpRoute_RouteBackend__Output {
  'backend': (_io_linkerd_proxy_outbound_Backend__Output | null);
  'filters': (_io_linkerd_proxy_outbound_HttpRoute_Filter__Output)[];
}

export interface _io_linkerd_proxy_outbound_HttpRoute_Rule {
  'matches'?: (_io_linkerd_proxy_http_route_HttpRouteMatch)[];
  'filters'?: (_io_linkerd_proxy_outbound_HttpRoute_Filter)[];
  'backends'?: (_io_linkerd_proxy_outbound_HttpRoute_Distribution | null);
  'timeouts'?: (_io_linkerd_proxy_http_route_Timeouts | null);
  'retry'?: (_io_linkerd_proxy_outbound_HttpRoute_Retry | null);
  'allow_l5d_request_headers'?: (boolean);
}

export interface _io_linkerd_proxy_outbound_HttpRoute_Rule__Output {
  'matches': (_io_linkerd_proxy_http_route_HttpRouteMatch__Output)[];
  'filters': (_io_linkerd_proxy_outbound_HttpRoute_Filter__Output)[];
  'backends': (_io_linkerd_proxy_outbound_HttpRoute_Distribution__Output | null);
  'timeouts': (_io_linkerd_proxy_http_route_Timeouts__Output | null);
  'retry': (_io_linkerd_proxy_outbound_HttpRoute_Retry__Output | null);
  'allow_l5d_request_headers': (boolean);
}

export interface _io_linkerd_proxy_outbound_HttpRoute_Retry_Conditions_StatusRange {
  'start'?: (number);
  'end'?: (number);
}

export interface _io_linkerd_proxy_outbound_HttpRoute_Retry_Conditions_StatusRange__Output {
  'start': (number);
  'end': (number);
}

export interface _io_linkerd_proxy_outbound_HttpRoute_WeightedRouteBackend {
  'backend'?: (_io_linkerd_proxy_outbound_HttpRoute_RouteBackend | null);
  'weight'?: (number);
}

export interface _io_linkerd_proxy_outbound_HttpRoute_WeightedRouteBackend__Output {
  'backend': (_io_linkerd_proxy_outbound_HttpRoute_RouteBackend__Output | null);
  'weight': (number);
}

export interface HttpRoute {
  'metadata'?: (_io_linkerd_proxy_meta_Metadata | null);
  'hosts'?: (_io_linkerd_proxy_http_route_HostMatch)[];
  'rules'?: (_io_linkerd_proxy_outbound_HttpRoute_Rule)[];
}

export interface HttpRoute__Output {
  'metadata': (_io_linkerd_proxy_meta_Metadata__Output | null);
  'hosts': (_io_linkerd_proxy_http_route_HostMatch__Output)[];
  'rules': (_io_linkerd_proxy_outbound_HttpRoute_Rule__Output)[];
}
