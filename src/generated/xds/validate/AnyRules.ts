// Original file: @grpc/grpc-js-xds/deps/protoc-gen-validate/validate/validate.proto


export interface AnyRules {
  'required'?: (boolean);
  'in'?: (string)[];
  'not_in'?: (string)[];
}

export interface AnyRules__Output {
  'required': (boolean);
  'in': (string)[];
  'not_in': (string)[];
}
