// Original file: proto/linkerd/http_types.proto


// Original file: proto/linkerd/http_types.proto

export const _io_linkerd_proxy_http_types_Scheme_Registered = {
  HTTP: 'HTTP',
  HTTPS: 'HTTPS',
} as const;

export type _io_linkerd_proxy_http_types_Scheme_Registered =
  | 'HTTP'
  | 0
  | 'HTTPS'
  | 1

export type _io_linkerd_proxy_http_types_Scheme_Registered__Output = typeof _io_linkerd_proxy_http_types_Scheme_Registered[keyof typeof _io_linkerd_proxy_http_types_Scheme_Registered]

export interface Scheme {
  'registered'?: (_io_linkerd_proxy_http_types_Scheme_Registered);
  'unregistered'?: (string);
  'type'?: "registered"|"unregistered";
}

export interface Scheme__Output {
  'registered'?: (_io_linkerd_proxy_http_types_Scheme_Registered__Output);
  'unregistered'?: (string);
  'type'?: "registered"|"unregistered";
}
