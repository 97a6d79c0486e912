// Original file: proto/linkerd/net.proto

import type { Long } from '@grpc/proto-loader';

export interface IPv6 {
  'first'?: (number | string | Long);
  'last'?: (number | string | Long);
}

export interface IPv6__Output {
  'first': (string);
  'last': (string);
}
