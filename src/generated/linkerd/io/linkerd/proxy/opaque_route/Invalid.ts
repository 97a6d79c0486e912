// Original file: proto/linkerd/opaque_route.proto


export interface Invalid {
  'message'?: (string);
}

export interface Invalid__Output {
  'message': (string);
}
