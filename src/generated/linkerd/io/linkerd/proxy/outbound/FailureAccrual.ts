// Original file: proto/linkerd/outbound.proto

import type { ExponentialBackoff as _io_linkerd_proxy_outbound_ExponentialBackoff, ExponentialBackoff__Output as _io_linkerd_proxy_outbound_ExponentialBackoff__Output } from '../../../../io/linkerd/proxy/outbound/ExponentialBackoff';

export interface _io_linkerd_proxy_outbound_FailureAccrual_ConsecutiveFailures {
  'max_failures'?: (number);
  'backoff'?: (_io_linkerd_proxy_outbound_ExponentialBackoff | null);
}

export interface _io_linkerd_proxy_outbound_FailureAccrual_ConsecutiveFailures__Output {
  'max_failures': (number);
  'backoff': (_io_linkerd_proxy_outbound_ExponentialBackoff__Output | null);
}

export interface FailureAccrual {
  'consecutive_failures'?: (_io_linkerd_proxy_outbound_FailureAccrual_ConsecutiveFailures | null);
  'kind'?: "consecutive_failures";
}

export interface FailureAccrual__Output {
  'consecutive_failures'?: (_io_linkerd_proxy_outbound_FailureAccrual_ConsecutiveFailures__Output | null);
  'kind'?: "consecutive_failures";
}
