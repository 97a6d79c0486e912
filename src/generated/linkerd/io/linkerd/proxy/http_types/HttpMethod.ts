// Original file: proto/linkerd/http_types.proto


// Original file: proto/linkerd/http_types.proto

export const _io_linkerd_proxy_http_types_HttpMethod_Registered = {
  GET: 'GET',
  POST: 'POST',
  PUT: 'PUT',
  DELETE: 'DELETE',
  PATCH: 'PATCH',
  OPTIONS: 'OPTIONS',
  CONNECT: 'CONNECT',
  HEAD: 'HEAD',
  TRACE: 'TRACE',
} as const;

export type _io_linkerd_proxy_http_types_HttpMethod_Registered =
  | 'GET'
  | 0
  | 'POST'
  | 1
  | 'PUT'
  | 2
  | 'DELETE'
  | 3
  | 'PATCH'
  | 4
  | 'OPTIONS'
  | 5
  | 'CONNECT'
  | 6
  | 'HEAD'
  | 7
  | 'TRACE'
  | 8

export type _io_linkerd_proxy_http_types_HttpMethod_Registered__Output = typeof _io_linkerd_proxy_http_types_HttpMethod_Registered[keyof typeof _io_linkerd_proxy_http_types_HttpMethod_Registered]

export interface HttpMethod {
  'registered'?: (_io_linkerd_proxy_http_types_HttpMethod_Registered);
  'unregistered'?: (string);
  'type'?: "registered"|"unregistered";
}

export interface HttpMethod__Output {
  'registered'?: (_io_linkerd_proxy_http_types_HttpMethod_Registered__Output);
  'unregistered'?: (string);
  'type'?: "registered"|"unregistered";
}
