// Original file: proto/linkerd/outbound.proto

import type { Duration as _google_protobuf_Duration, Duration__Output as _google_protobuf_Duration__Output } from '../../../../google/protobuf/Duration';

export interface Queue {
  'capacity'?: (number);
  'failfast_timeout'?: (_google_protobuf_Duration | null);
}

export interface Queue__Output {
  'capacity': (number);
  'failfast_timeout': (_google_protobuf_Duration__Output | null);
}
