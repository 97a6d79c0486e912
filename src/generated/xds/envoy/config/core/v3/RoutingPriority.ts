// Original file: @grpc/grpc-js-xds/deps/envoy-api/envoy/config/core/v3/base.proto

export const RoutingPriority = {
  DEFAULT: 'DEFAULT',
  HIGH: 'HIGH',
} as const;

export type RoutingPriority =
  | 'DEFAULT'
  | 0
  | 'HIGH'
  | 1

export type RoutingPriority__Output = typeof RoutingPriority[keyof typeof RoutingPriority]
