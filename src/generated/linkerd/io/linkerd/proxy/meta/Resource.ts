// Original file: proto/linkerd/meta.proto


export interface Resource {
  'group'?: (string);
  'kind'?: (string);
  'name'?: (string);
  'namespace'?: (string);
  'section'?: (string);
  'port'?: (number);
}

export interface Resource__Output {
  'group': (string);
  'kind': (string);
  'name': (string);
  'namespace': (string);
  'section': (string);
  'port': (number);
}
