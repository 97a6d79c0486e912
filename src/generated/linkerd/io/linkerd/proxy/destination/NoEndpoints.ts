// Original file: proto/linkerd/destination.proto


export interface NoEndpoints {
  'exists'?: (boolean);
}

export interface NoEndpoints__Output {
  'exists': (boolean);
}
