// Original file: proto/linkerd/outbound.proto

import type { Duration as _google_protobuf_Duration, Duration__Output as _google_protobuf_Duration__Output } from '../../../../google/protobuf/Duration';

export interface ExponentialBackoff {
  'min_backoff'?: (_google_protobuf_Duration | null);
  'max_backoff'?: (_google_protobuf_Duration | null);
  'jitter_ratio'?: (number | string);
  'respect_retry_after_hint'?: (boolean);
}

export interface ExponentialBackoff__Output {
  'min_backoff': (_google_protobuf_Duration__Output | null);
  'max_backoff': (_google_protobuf_Duration__Output | null);
  'jitter_ratio': (number);
  'respect_retry_after_hint': (boolean);
}
