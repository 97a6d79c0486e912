// Original file: @grpc/grpc-js-xds/deps/envoy-api/envoy/config/core/v3/base.proto


export interface ControlPlane {
  'identifier'?: (string);
}

export interface ControlPlane__Output {
  'identifier': (string);
}
