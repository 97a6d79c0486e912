// Original file: @grpc/grpc-js-xds/deps/envoy-api/envoy/service/discovery/v3/discovery.proto

import type { DynamicParameterConstraints as _envoy_service_discovery_v3_DynamicParameterConstraints, DynamicParameterConstraints__Output as _envoy_service_discovery_v3_DynamicParameterConstraints__Output } from '../../../../envoy/service/discovery/v3/DynamicParameterConstraints';

export interface _envoy_service_discovery_v3_DynamicParameterConstraints_ConstraintList {
  'constraints'?: (_envoy_service_discovery_v3_DynamicParameterConstraints)[];
}

export interface _envoy_service_discovery_v3_DynamicParameterConstraints_ConstraintList__Output {
  'constraints': (_envoy_service_discovery_v3_DynamicParameterConstraints__Output)[];
}

export interface _envoy_service_discovery_v3_DynamicParameterConstraints_SingleConstraint_Exists {
}

export interface _envoy_service_discovery_v3_DynamicParameterConstraints_SingleConstraint_Exists__Output {
}

export interface _envoy_service_discovery_v3_DynamicParameterConstraints_SingleConstraint {
  'key'?: (string);
  'value'?: (string);
  'exists'?: (_envoy_service_discovery_v3_DynamicParameterConstraints_SingleConstraint_Exists | null);
  'constraint_type'?: "value"|"exists";
}

export interface _envoy_service_discovery_v3_DynamicParameterConstraints_SingleConstraint__Output {
  'key': (string);
  'value'?: (string);
  'exists'?: (_envoy_service_discovery_v3_DynamicParameterConstraints_SingleConstraint_Exists__Output | null);
  'constraint_type'?: "value"|"exists";
}

export interface DynamicParameterConstraints {
  'constraint'?: (_envoy_service_discovery_v3_DynamicParameterConstraints_SingleConstraint | null);
  'or_constraints'?: (_envoy_service_discovery_v3_DynamicParameterConstraints_ConstraintList | null);
  'and_constraints'?: (_envoy_service_discovery_v3_DynamicParameterConstraints_ConstraintList | null);
  'not_constraints'?: (_envoy_service_discovery_v3_DynamicParameterConstraints | null);
  'type'?: "constraint"|"or_constraints"|"and_constraints"|"not_constraints";
}

export interface DynamicParameterConstraints__Output {
  'constraint'?: (_envoy_service_discovery_v3_DynamicParameterConstraints_SingleConstraint__Output | null);
  'or_constraints'?: (_envoy_service_discovery_v3_DynamicParameterConstraints_ConstraintList__Output | null);
  'and_constraints'?: (_envoy_service_discovery_v3_DynamicParameterConstraints_ConstraintList__Output | null);
  'not_constraints'?: (_envoy_service_discovery_v3_DynamicParameterConstraints__Output | null);
  'type'?: "constraint"|"or_constraints"|"and_constraints"|"not_constraints";
}
