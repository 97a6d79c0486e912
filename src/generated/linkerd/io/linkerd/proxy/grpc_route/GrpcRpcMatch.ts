// Original file: proto/linkerd/grpc_route.proto


export interface GrpcRpcMatch {
  'service'?: (string);
  'method'?: (string);
}

export interface GrpcRpcMatch__Output {
  'service': (string);
  'method': (string);
}
