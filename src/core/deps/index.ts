export { dep, depKey, parseDepKey, keySet, uniqueDependencies, type DepKey, type Dependency } from './keys';
export { gatewayDependencies, routesDependencies, type RouteDependencyCounts, policyDependencies, policyTargets, withPolicyDependencies, type PoliciesOf, type PolicyInput } from './gateway-deps';
export { touchedBy } from './touches';
export { affectedGateways } from './affected';
export { REFERENCE_FIELDS } from './references';
