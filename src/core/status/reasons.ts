// The one catalogue of condition types and reasons, spelled as the Gateway API spec spells them
// (apis/v1 *_types.go). Everything that writes a condition takes its words from here.

export const ConditionType = {
  Accepted: 'Accepted',
  Programmed: 'Programmed',
  ResolvedRefs: 'ResolvedRefs',
  Conflicted: 'Conflicted',
  OverlappingTLSConfig: 'OverlappingTLSConfig',
  SupportedVersion: 'SupportedVersion',
  PartiallyInvalid: 'PartiallyInvalid',
  InsecureFrontendValidationMode: 'InsecureFrontendValidationMode',
} as const;
export type ConditionTypeName = (typeof ConditionType)[keyof typeof ConditionType];

export const GatewayClassReason = {
  Accepted: 'Accepted',
  InvalidParameters: 'InvalidParameters',
  Pending: 'Pending',
  Unsupported: 'Unsupported',
  SupportedVersion: 'SupportedVersion',
  UnsupportedVersion: 'UnsupportedVersion',
} as const;

export const GatewayReason = {
  // Accepted
  Accepted: 'Accepted',
  ListenersNotValid: 'ListenersNotValid',
  Invalid: 'Invalid',
  InvalidParameters: 'InvalidParameters',
  UnsupportedAddress: 'UnsupportedAddress',
  Pending: 'Pending',
  // Programmed
  Programmed: 'Programmed',
  AddressNotAssigned: 'AddressNotAssigned',
  AddressNotUsable: 'AddressNotUsable',
  // ResolvedRefs
  ResolvedRefs: 'ResolvedRefs',
  RefNotPermitted: 'RefNotPermitted',
  InvalidClientCertificateRef: 'InvalidClientCertificateRef',
  ListenersNotResolved: 'ListenersNotResolved',
  // InsecureFrontendValidationMode
  ConfigurationChanged: 'ConfigurationChanged',
} as const;

export const ListenerReason = {
  // Accepted
  Accepted: 'Accepted',
  PortUnavailable: 'PortUnavailable',
  UnsupportedProtocol: 'UnsupportedProtocol',
  UnsupportedValue: 'UnsupportedValue',
  NoValidCACertificate: 'NoValidCACertificate',
  /**
   * A ListenerSet listener's Accepted=False reason whenever Conflicted=True, in Gateway API #4815
   * (ListenerEntryReasonConflicted), on classes that opt into it (status/listener-set-mode.ts).
   */
  Conflicted: 'Conflicted',
  // Conflicted (also the Accepted reason of a conflicted listener)
  HostnameConflict: 'HostnameConflict',
  ProtocolConflict: 'ProtocolConflict',
  NoConflicts: 'NoConflicts',
  // ResolvedRefs
  ResolvedRefs: 'ResolvedRefs',
  InvalidCertificateRef: 'InvalidCertificateRef',
  InvalidRouteKinds: 'InvalidRouteKinds',
  RefNotPermitted: 'RefNotPermitted',
  InvalidCACertificateRef: 'InvalidCACertificateRef',
  InvalidCACertificateKind: 'InvalidCACertificateKind',
  // Programmed
  Programmed: 'Programmed',
  Invalid: 'Invalid',
  Pending: 'Pending',
  /** From the implementer's guide: an HTTPS or TLS-terminating listener without enough TLS configuration. */
  InvalidTLSConfig: 'InvalidTLSConfig',
  // OverlappingTLSConfig
  OverlappingHostnames: 'OverlappingHostnames',
  OverlappingCertificates: 'OverlappingCertificates',
} as const;

export const RouteReason = {
  // Accepted
  Accepted: 'Accepted',
  NotAllowedByListeners: 'NotAllowedByListeners',
  NoMatchingListenerHostname: 'NoMatchingListenerHostname',
  NoMatchingParent: 'NoMatchingParent',
  UnsupportedValue: 'UnsupportedValue',
  Pending: 'Pending',
  IncompatibleFilters: 'IncompatibleFilters',
  // ResolvedRefs
  ResolvedRefs: 'ResolvedRefs',
  RefNotPermitted: 'RefNotPermitted',
  InvalidKind: 'InvalidKind',
  BackendNotFound: 'BackendNotFound',
  UnsupportedProtocol: 'UnsupportedProtocol',
} as const;

/**
 * Why a resolved backend cannot take traffic although its reference is fine. Not a condition reason:
 * a Service without ready endpoints still resolves (ResolvedRefs stays True), but the compiled table
 * flags the backend so that its share of traffic is rejected.
 */
export const BackendReason = {
  NoEndpoints: 'NoEndpoints',
  /** a backend that is unusable for a reason its resolution did not name */
  Invalid: 'Invalid',
  /** the BackendTLSPolicy for the backend's Service port has no usable CA: connections must fail, not go unverified */
  InvalidBackendTLS: 'InvalidBackendTLS',
} as const;

/** Reasons of a BackendTLSPolicy's conditions (status.ancestors[].conditions), as the API names them. */
export const PolicyReason = {
  // Accepted
  Accepted: 'Accepted',
  Conflicted: 'Conflicted',
  NoValidCACertificate: 'NoValidCACertificate',
  Invalid: 'Invalid',
  // ResolvedRefs
  ResolvedRefs: 'ResolvedRefs',
  InvalidCACertificateRef: 'InvalidCACertificateRef',
  InvalidKind: 'InvalidKind',
} as const;

/** ListenerSet status.conditions (apis/v1 listenerset_types.go); its listeners use ListenerReason. */
export const ListenerSetReason = {
  // Accepted
  Accepted: 'Accepted',
  NotAllowed: 'NotAllowed',
  ParentNotAccepted: 'ParentNotAccepted',
  ListenersNotValid: 'ListenersNotValid',
  Invalid: 'Invalid',
  // Programmed
  Programmed: 'Programmed',
  ParentNotProgrammed: 'ParentNotProgrammed',
} as const;

/**
 * The condition types this controller writes on each kind of status. Types outside these sets that
 * another party wrote are kept untouched when statuses are merged; types inside are ours to set or
 * to remove.
 */
export const OWNED_CONDITION_TYPES = {
  gatewayClass: [ConditionType.Accepted, ConditionType.SupportedVersion],
  gateway: [ConditionType.Accepted, ConditionType.Programmed, ConditionType.ResolvedRefs,
    ConditionType.InsecureFrontendValidationMode],
  listener: [ConditionType.Accepted, ConditionType.Programmed, ConditionType.ResolvedRefs,
    ConditionType.Conflicted, ConditionType.OverlappingTLSConfig],
  routeParent: [ConditionType.Accepted, ConditionType.ResolvedRefs, ConditionType.PartiallyInvalid],
  policyAncestor: [ConditionType.Accepted, ConditionType.ResolvedRefs],
  listenerSet: [ConditionType.Accepted, ConditionType.Programmed],
} as const;
