// Original file: @grpc/grpc-js-xds/deps/envoy-api/envoy/service/discovery/v3/discovery.proto

import type { Any as _google_protobuf_Any, Any__Output as _google_protobuf_Any__Output } from '../../../../google/protobuf/Any';
import type { Duration as _google_protobuf_Duration, Duration__Output as _google_protobuf_Duration__Output } from '../../../../google/protobuf/Duration';
import type { ResourceName as _envoy_service_discovery_v3_ResourceName, ResourceName__Output as _envoy_service_discovery_v3_ResourceName__Output } from '../../../../envoy/service/discovery/v3/ResourceName';
import type { Metadata as _envoy_config_core_v3_Metadata, Metadata__Output as _envoy_config_core_v3_Metadata__Output } from '../../../../envoy/config/core/v3/Metadata';

export interface _envoy_service_discovery_v3_Resource_CacheControl {
  'do_not_cache'?: (boolean);
}

export interface _envoy_service_discovery_v3_Resource_CacheControl__Output {
  'do_not_cache': (boolean);
}

export interface Resource {
  'version'?: (string);
  'resource'?: (_google_protobuf_Any | null);
  'name'?: (string);
  'aliases'?: (string)[];
  'ttl'?: (_google_protobuf_Duration | null);
  'cache_control'?: (_envoy_service_discovery_v3_Resource_CacheControl | null);
  'resource_name'?: (_envoy_service_discovery_v3_ResourceName | null);
  'metadata'?: (_envoy_config_core_v3_Metadata | null);
}

export interface Resource__Output {
  'version': (string);
  'resource': (_google_protobuf_Any__Output | null);
  'name': (string);
  'aliases': (string)[];
  'ttl': (_google_protobuf_Duration__Output | null);
  'cache_control': (_envoy_service_discovery_v3_Resource_CacheControl__Output | null);
  'resource_name': (_envoy_service_discovery_v3_ResourceName__Output | null);
  'metadata': (_envoy_config_core_v3_Metadata__Output | null);
}
