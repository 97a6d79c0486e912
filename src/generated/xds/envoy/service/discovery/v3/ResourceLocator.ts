// Original file: @grpc/grpc-js-xds/deps/envoy-api/envoy/service/discovery/v3/discovery.proto


export interface ResourceLocator {
  'name'?: (string);
  'dynamic_parameters'?: ({[key: string]: string});
}

export interface ResourceLocator__Output {
  'name': (string);
  'dynamic_parameters': ({[key: string]: string});
}
