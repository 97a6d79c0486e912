// Original file: @grpc/grpc-js-xds/deps/envoy-api/envoy/config/core/v3/base.proto

import type { KeyValueAppend as _envoy_config_core_v3_KeyValueAppend, KeyValueAppend__Output as _envoy_config_core_v3_KeyValueAppend__Output } from '../../../../envoy/config/core/v3/KeyValueAppend';

export interface KeyValueMutation {
  'append'?: (_envoy_config_core_v3_KeyValueAppend | null);
  'remove'?: (string);
}

export interface KeyValueMutation__Output {
  'append': (_envoy_config_core_v3_KeyValueAppend__Output | null);
  'remove': (string);
}
