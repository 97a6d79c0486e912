// Original file: proto/linkerd/http_route.proto


export interface Ratio {
  'numerator'?: (number);
  'denominator'?: (number);
}

export interface Ratio__Output {
  'numerator': (number);
  'denominator': (number);
}
