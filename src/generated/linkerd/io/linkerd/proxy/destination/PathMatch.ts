// Original file: proto/linkerd/destination.proto


export interface PathMatch {
  'regex'?: (string);
}

export interface PathMatch__Output {
  'regex': (string);
}
