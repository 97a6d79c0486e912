// Original file: proto/linkerd/destination.proto

import type { Duration as _google_protobuf_Duration, Duration__Output as _google_protobuf_Duration__Output } from '../../../../google/protobuf/Duration';

export interface RetryBudget {
  'retry_ratio'?: (number | string);
  'min_retries_per_second'?: (number);
  'ttl'?: (_google_protobuf_Duration | null);
}

export interface RetryBudget__Output {
  'retry_ratio': (number);
  'min_retries_per_second': (number);
  'ttl': (_google_protobuf_Duration__Output | null);
}
