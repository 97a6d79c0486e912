// Original file: proto/linkerd/destination.proto

import type { Duration as _google_protobuf_Duration, Duration__Output as _google_protobuf_Duration__Output } from '../../../../google/protobuf/Duration';

export interface _io_linkerd_proxy_destination_Http2ClientParams_FlowControl {
  'initial_connection_window_size'?: (number);
  'initial_stream_window_size'?: (number);
  'adaptive_flow_control'?: (boolean);
}

export interface _io_linkerd_proxy_destination_Http2ClientParams_FlowControl__Output {
  'initial_connection_window_size': (number);
  'initial_stream_window_size': (number);
  'adaptive_flow_control': (boolean);
}

export interface _io_linkerd_proxy_destination_Http2ClientParams_Internals {
  'max_concurrent_reset_streams'?: (number);
  'max_frame_size'?: (number);
  'max_send_buf_size'?: (number);
}

export interface _io_linkerd_proxy_destination_Http2ClientParams_Internals__Output {
  'max_concurrent_reset_streams': (number);
  'max_frame_size': (number);
  'max_send_buf_size': (number);
}

export interface _io_linkerd_proxy_destination_Http2ClientParams_KeepAlive {
  'interval'?: (_google_protobuf_Duration | null);
  'timeout'?: (_google_protobuf_Duration | null);
  'while_idle'?: (boolean);
}

export interface _io_linkerd_proxy_destination_Http2ClientParams_KeepAlive__Output {
  'interval': (_google_protobuf_Duration__Output | null);
  'timeout': (_google_protobuf_Duration__Output | null);
  'while_idle': (boolean);
}

export interface Http2ClientParams {
  'flow_control'?: (_io_linkerd_proxy_destination_Http2ClientParams_FlowControl | null);
  'keep_alive'?: (_io_linkerd_proxy_destination_Http2ClientParams_KeepAlive | null);
  'internals'?: (_io_linkerd_proxy_destination_Http2ClientParams_Internals | null);
}

export interface Http2ClientParams__Output {
  'flow_control': (_io_linkerd_proxy_destination_Http2ClientParams_FlowControl__Output | null);
  'keep_alive': (_io_linkerd_proxy_destination_Http2ClientParams_KeepAlive__Output | null);
  'internals': (_io_linkerd_proxy_destination_Http2ClientParams_Internals__Output | null);
}
