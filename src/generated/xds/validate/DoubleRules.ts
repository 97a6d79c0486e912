// Original file: @grpc/grpc-js-xds/deps/protoc-gen-validate/validate/validate.proto


export interface DoubleRules {
  'const'?: (number | string);
  'lt'?: (number | string);
  'lte'?: (number | string);
  'gt'?: (number | string);
  'gte'?: (number | string);
  'in'?: (number | string)[];
  'not_in'?: (number | string)[];
}

export interface DoubleRules__Output {
  'const': (number);
  'lt': (number);
  'lte': (number);
  'gt': (number);
  'gte': (number);
  'in': (number)[];
  'not_in': (number)[];
}
