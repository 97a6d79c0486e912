// Original file: proto/linkerd/meta.proto

import type { Resource as _io_linkerd_proxy_meta_Resource, Resource__Output as _io_linkerd_proxy_meta_Resource__Output } from '../../../../io/linkerd/proxy/meta/Resource';

export interface Metadata {
  'default'?: (string);
  'resource'?: (_io_linkerd_proxy_meta_Resource | null);
  'kind'?: "default"|"resource";
}

export interface Metadata__Output {
  'default'?: (string);
  'resource'?: (_io_linkerd_proxy_meta_Resource__Output | null);
  'kind'?: "default"|"resource";
}
