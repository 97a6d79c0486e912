// Original file: proto/linkerd/destination.proto


export interface HttpStatusRange {
  'min'?: (number);
  'max'?: (number);
}

export interface HttpStatusRange__Output {
  'min': (number);
  'max': (number);
}
