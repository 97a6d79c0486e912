// Original file: proto/linkerd/http_route.proto


export interface QueryParamMatch {
  'name'?: (string);
  'exact'?: (string);
  'regex'?: (string);
  'value'?: "exact"|"regex";
}

export interface QueryParamMatch__Output {
  'name': (string);
  'exact'?: (string);
  'regex'?: (string);
  'value'?: "exact"|"regex";
}
