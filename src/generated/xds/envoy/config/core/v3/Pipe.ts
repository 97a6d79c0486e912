// Original file: @grpc/grpc-js-xds/deps/envoy-api/envoy/config/core/v3/address.proto


export interface Pipe {
  'path'?: (string);
  'mode'?: (number);
}

export interface Pipe__Output {
  'path': (string);
  'mode': (number);
}
