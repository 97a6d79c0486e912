// Original file: @grpc/grpc-js-xds/deps/xds/xds/core/v3/context_params.proto


export interface ContextParams {
  'params'?: ({[key: string]: string});
}

export interface ContextParams__Output {
  'params': ({[key: string]: string});
}
