// Original file: proto/linkerd/destination.proto

import type { Metadata as _io_linkerd_proxy_meta_Metadata, Metadata__Output as _io_linkerd_proxy_meta_Metadata__Output } from '../../../../io/linkerd/proxy/meta/Metadata';

export interface WeightedDst {
  'authority'?: (string);
  'weight'?: (number);
  'backend_ref'?: (_io_linkerd_proxy_meta_Metadata | null);
}

export interface WeightedDst__Output {
  'authority': (string);
  'weight': (number);
  'backend_ref': (_io_linkerd_proxy_meta_Metadata__Output | null);
}
