// Original file: proto/linkerd/destination.proto

import type { ResponseMatch as _io_linkerd_proxy_destination_ResponseMatch, ResponseMatch__Output as _io_linkerd_proxy_destination_ResponseMatch__Output } from '../../../../io/linkerd/proxy/destination/ResponseMatch';

export interface ResponseClass {
  'condition'?: (_io_linkerd_proxy_destination_ResponseMatch | null);
  'is_failure'?: (boolean);
}

export interface ResponseClass__Output {
  'condition': (_io_linkerd_proxy_destination_ResponseMatch__Output | null);
  'is_failure': (boolean);
}
