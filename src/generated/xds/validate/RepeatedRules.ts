// Original file: @grpc/grpc-js-xds/deps/protoc-gen-validate/validate/validate.proto

import type { FieldRules as _validate_FieldRules, FieldRules__Output as _validate_FieldRules__Output } from '../validate/FieldRules';
import type { Long } from '@grpc/proto-loader';

export interface RepeatedRules {
  'min_items'?: (number | string | Long);
  'max_items'?: (number | string | Long);
  'unique'?: (boolean);
  'items'?: (_validate_FieldRules | null);
}

export interface RepeatedRules__Output {
  'min_items': (string);
  'max_items': (string);
  'unique': (boolean);
  'items': (_validate_FieldRules__Output | null);
}
