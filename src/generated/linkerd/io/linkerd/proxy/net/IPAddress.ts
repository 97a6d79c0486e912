// Original file: proto/linkerd/net.proto

import type { IPv6 as _io_linkerd_proxy_net_IPv6, IPv6__Output as _io_linkerd_proxy_net_IPv6__Output } from '../../../../io/linkerd/proxy/net/IPv6';

export interface IPAddress {
  'ipv4'?: (number);
  'ipv6'?: (_io_linkerd_proxy_net_IPv6 | null);
  'ip'?: "ipv4"|"ipv6";
}

export interface IPAddress__Output {
  'ipv4'?: (number);
  'ipv6'?: (_io_linkerd_proxy_net_IPv6__Output | null);
  'ip'?: "ipv4"|"ipv6";
}
