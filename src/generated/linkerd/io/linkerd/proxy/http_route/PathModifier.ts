// Original file: proto/linkerd/http_route.proto


export interface PathModifier {
  'full'?: (string);
  'prefix'?: (string);
  'replace'?: "full"|"prefix";
}

export interface PathModifier__Output {
  'full'?: (string);
  'prefix'?: (string);
  'replace'?: "full"|"prefix";
}
