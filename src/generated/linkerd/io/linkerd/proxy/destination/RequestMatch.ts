// Original file: proto/linkerd/destination.proto

import type { RequestMatch as _io_linkerd_proxy_destination_RequestMatch, RequestMatch__Output as _io_linkerd_proxy_destination_RequestMatch__Output } from '../../../../io/linkerd/proxy/destination/RequestMatch';
import type { PathMatch as _io_linkerd_proxy_destination_PathMatch, PathMatch__Output as _io_linkerd_proxy_destination_PathMatch__Output } from '../../../../io/linkerd/proxy/destination/PathMatch';
import type { HttpMethod as _io_linkerd_proxy_http_types_HttpMethod, HttpMethod__Output as _io_linkerd_proxy_http_types_HttpMethod__Output } from '../../../../io/linkerd/proxy/http_types/HttpMethod';

export interface _io_linkerd_proxy_destination_RequestMatch_Seq {
  'matches'?: (_io_linkerd_proxy_destination_RequestMatch)[];
}

export interface _io_linkerd_proxy_destination_RequestMatch_Seq__Output {
  'matches': (_io_linkerd_proxy_destination_RequestMatch__Output)[];
}

export interface RequestMatch {
  'all'?: (_io_linkerd_proxy_destination_RequestMatch_Seq | null);
  'any'?: (_io_linkerd_proxy_destination_RequestMatch_Seq | null);
  'not'?: (_io_linkerd_proxy_destination_RequestMatch | null);
  'path'?: (_io_linkerd_proxy_destination_PathMatch | null);
  'method'?: (_io_linkerd_proxy_http_types_HttpMethod | null);
  'match'?: "all"|"any"|"not"|"path"|"method";
}

export interface RequestMatch__Output {
  'all'?: (_io_linkerd_proxy_destination_RequestMatch_Seq__Output | null);
  'any'?: (_io_linkerd_proxy_destination_RequestMatch_Seq__Output | null);
  'not'?: (_io_linkerd_proxy_destination_RequestMatch__Output | null);
  'path'?: (_io_linkerd_proxy_destination_PathMatch__Output | null);
  'method'?: (_io_linkerd_proxy_http_types_HttpMethod__Output | null);
  'match'?: "all"|"any"|"not"|"path"|"method";
}
