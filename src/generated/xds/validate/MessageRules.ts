// Original file: @grpc/grpc-js-xds/deps/protoc-gen-validate/validate/validate.proto


export interface MessageRules {
  'skip'?: (boolean);
  'required'?: (boolean);
}

export interface MessageRules__Output {
  'skip': (boolean);
  'required': (boolean);
}
