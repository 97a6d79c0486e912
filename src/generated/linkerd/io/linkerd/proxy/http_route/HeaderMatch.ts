// Original file: proto/linkerd/http_route.proto


export interface HeaderMatch {
  'name'?: (string);
  'exact'?: (Buffer | Uint8Array | string);
  'regex'?: (string);
  'value'?: "exact"|"regex";
}

export interface HeaderMatch__Output {
  'name': (string);
  'exact'?: (Buffer);
  'regex'?: (string);
  'value'?: "exact"|"regex";
}
