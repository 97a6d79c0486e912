// Original file: @grpc/grpc-js-xds/deps/envoy-api/envoy/config/core/v3/base.proto


export interface RuntimeUInt32 {
  'default_value'?: (number);
  'runtime_key'?: (string);
}

export interface RuntimeUInt32__Output {
  'default_value': (number);
  'runtime_key': (string);
}
