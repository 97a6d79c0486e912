// Original file: proto/linkerd/http_route.proto

import type { Duration as _google_protobuf_Duration, Duration__Output as _google_protobuf_Duration__Output } from '../../../../google/protobuf/Duration';

export interface Timeouts {
  'response'?: (_google_protobuf_Duration | null);
  'request'?: (_google_protobuf_Duration | null);
  'idle'?: (_google_protobuf_Duration | null);
}

export interface Timeouts__Output {
  'response': (_google_protobuf_Duration__Output | null);
  'request': (_google_protobuf_Duration__Output | null);
  'idle': (_google_protobuf_Duration__Output | null);
}
