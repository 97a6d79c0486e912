// Original file: @grpc/grpc-js-xds/deps/envoy-api/envoy/config/core/v3/base.proto

import type { Percent as _envoy_type_v3_Percent, Percent__Output as _envoy_type_v3_Percent__Output } from '../../../../envoy/type/v3/Percent';

export interface RuntimePercent {
  'default_value'?: (_envoy_type_v3_Percent | null);
  'runtime_key'?: (string);
}

export interface RuntimePercent__Output {
  'default_value': (_envoy_type_v3_Percent__Output | null);
  'runtime_key': (string);
}
