// Original file: proto/linkerd/destination.proto

import type { ResponseMatch as _io_linkerd_proxy_destination_ResponseMatch, ResponseMatch__Output as _io_linkerd_proxy_destination_ResponseMatch__Output } from '../../../../io/linkerd/proxy/destination/ResponseMatch';
import type { HttpStatusRange as _io_linkerd_proxy_destination_HttpStatusRange, HttpStatusRange__Output as _io_linkerd_proxy_destination_HttpStatusRange__Output } from '../../../../io/linkerd/proxy/destination/HttpStatusRange';

export interface _io_linkerd_proxy_destination_ResponseMatch_Seq {
  'matches'?: (_io_linkerd_proxy_destination_ResponseMatch)[];
}

export interface _io_linkerd_proxy_destination_ResponseMatch_Seq__Output {
  'matches': (_io_linkerd_proxy_destination_ResponseMatch__Output)[];
}

export interface ResponseMatch {
  'all'?: (_io_linkerd_proxy_destination_ResponseMatch_Seq | null);
  'any'?: (_io_linkerd_proxy_destination_ResponseMatch_Seq | null);
  'not'?: (_io_linkerd_proxy_destination_ResponseMatch | null);
  'status'?: (_io_linkerd_proxy_destination_HttpStatusRange | null);
  'match'?: "all"|"any"|"not"|"status";
}

export interface ResponseMatch__Output {
  'all'?: (_io_linkerd_proxy_destination_ResponseMatch_Seq__Output | null);
  'any'?: (_io_linkerd_proxy_destination_ResponseMatch_Seq__Output | null);
  'not'?: (_io_linkerd_proxy_destination_ResponseMatch__Output | null);
  'status'?: (_io_linkerd_proxy_destination_HttpStatusRange__Output | null);
  'match'?: "all"|"any"|"not"|"status";
}
