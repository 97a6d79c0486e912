// Original file: @grpc/grpc-js-xds/deps/envoy-api/envoy/service/discovery/v3/ads.proto


export interface AdsDummy {
}

export interface AdsDummy__Output {
}
