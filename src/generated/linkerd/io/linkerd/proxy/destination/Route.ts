// Original file: proto/linkerd/destination.proto

import type { RequestMatch as _io_linkerd_proxy_destination_RequestMatch, RequestMatch__Output as _io_linkerd_proxy_destination_RequestMatch__Output } from '../../../../io/linkerd/proxy/destination/RequestMatch';
import type { ResponseClass as _io_linkerd_proxy_destination_ResponseClass, ResponseClass__Output as _io_linkerd_proxy_destination_ResponseClass__Output } from '../../../../io/linkerd/proxy/destination/ResponseClass';
import type { Duration as _google_protobuf_Duration, Duration__Output as _google_protobuf_Duration__Output } from '../../../../google/protobuf/Duration';

export interface Route {
  'condition'?: (_io_linkerd_proxy_destination_RequestMatch | null);
  'response_classes'?: (_io_linkerd_proxy_destination_ResponseClass)[];
  'metrics_labels'?: ({[key: string]: string});
  'is_retryable'?: (boolean);
  'timeout'?: (_google_protobuf_Duration | null);
}

export interface Route__Output {
  'condition': (_io_linkerd_proxy_destination_RequestMatch__Output | null);
  'response_classes': (_io_linkerd_proxy_destination_ResponseClass__Output)[];
  'metrics_labels': ({[key: string]: string});
  'is_retryable': (boolean);
  'timeout': (_google_protobuf_Duration__Output | null);
}
