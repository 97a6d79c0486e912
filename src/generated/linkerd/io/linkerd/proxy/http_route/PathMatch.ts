// Original file: proto/linkerd/http_route.proto


export interface PathMatch {
  'exact'?: (string);
  'prefix'?: (string);
  'regex'?: (string);
  'kind'?: "exact"|"prefix"|"regex";
}

export interface PathMatch__Output {
  'exact'?: (string);
  'prefix'?: (string);
  'regex'?: (string);
  'kind'?: "exact"|"prefix"|"regex";
}
