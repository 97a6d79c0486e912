// Original file: @grpc/grpc-js-xds/deps/envoy-api/envoy/type/v3/percent.proto


export interface Percent {
  'value'?: (number | string);
}

export interface Percent__Output {
  'value': (number);
}
