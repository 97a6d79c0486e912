// Original file: proto/linkerd/destination.proto


export interface GetDestination {
  'scheme'?: (string);
  'path'?: (string);
  'context_token'?: (string);
}

export interface GetDestination__Output {
  'scheme': (string);
  'path': (string);
  'context_token': (string);
}
