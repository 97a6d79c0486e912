// Every reference field of every kind Switchyard serves, and what a Gateway's result then depends
// on. test/unit/dependencies.test.ts walks the schemas in openapi/ and fails on a reference field
// missing here, and checks each entry against gatewayDependencies / touchedBy.
export const REFERENCE_FIELDS: Readonly<Record<string, string>> = {
  'Gateway.spec.listeners[].tls.certificateRefs': 'Secret (default kind), plus the ReferenceGrants of its namespace when it is another',
  'Gateway.spec.listeners[].allowedRoutes.namespaces.from': 'Selector: the labels of every Namespace',
  'Gateway.spec.listeners[].allowedRoutes.namespaces.selector': 'the labels of every Namespace',
  'Gateway.spec.allowedListeners.namespaces.from': 'Selector: the labels of every Namespace',
  'Gateway.spec.allowedListeners.namespaces.selector': 'the labels of every Namespace',
  'Gateway.spec.tls.backend.clientCertificateRef': 'Secret (default kind), plus the ReferenceGrants of its namespace when it is another',
  'Gateway.spec.tls.frontend.default.validation.caCertificateRefs': 'ConfigMap or Secret as named, plus the ReferenceGrants of its namespace when it is another',
  'Gateway.spec.tls.frontend.perPort[].tls.validation.caCertificateRefs': 'ConfigMap or Secret as named, plus the ReferenceGrants of its namespace when it is another',
  'Gateway.spec.infrastructure.parametersRef': 'none: any infrastructure parametersRef is refused whatever it names',
  'GatewayClass.spec.parametersRef': 'none for Gateways (the GatewayClass recompute refuses any parametersRef)',
  'Route.spec.parentRefs': 'the Gateway named (its recompute writes the route\'s status entry)',
  'Route.spec.rules[].backendRefs': 'Service and its EndpointSlices, plus the ReferenceGrants of its namespace when it is another',
  'Route.spec.rules[].filters[].requestMirror.backendRef': 'Service and its EndpointSlices, plus the ReferenceGrants of its namespace when it is another',
  'Route.spec.rules[].filters[].externalAuth.backendRef': 'Service and its EndpointSlices, plus the ReferenceGrants of its namespace when it is another',
  'Route.spec.rules[].filters[].extensionRef': 'none: no extension kinds are served, so an ExtensionRef is refused whatever it names',
  'Route.spec.rules[].backendRefs[].filters[].requestMirror.backendRef': 'Service and its EndpointSlices, plus the ReferenceGrants of its namespace when it is another',
  'Route.spec.rules[].backendRefs[].filters[].externalAuth.backendRef': 'Service and its EndpointSlices, plus the ReferenceGrants of its namespace when it is another',
  'Route.spec.rules[].backendRefs[].filters[].extensionRef': 'none: refused whatever it names',
  'ReferenceGrant.spec.from': 'the grants of its namespace, for every Gateway referring into it',
  'ReferenceGrant.spec.to': 'the grants of its namespace, for every Gateway referring into it',
  'Service.spec.selector': 'none: endpoints come from EndpointSlices, never from pod selectors',
  'BackendTLSPolicy.spec.targetRefs': 'the Services named (in its namespace): a change of the policy touches them, so the Gateways reaching them recompute',
  'BackendTLSPolicy.spec.validation.caCertificateRefs': 'ConfigMap or Secret as named, in its namespace, for every Gateway reaching a Service the policy targets',
};
