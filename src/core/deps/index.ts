export { dep, depKey, parseDepKey, keySet, uniqueDependencies, unreachable, type DepKey, type Dependency } from './keys';
export { gatewayDependencies, gatewayOwnDependencies, routeDependencies } from './gateway-deps';
export { touchedBy } from './touches';
export { affectedGateways } from './affected';
export { REFERENCE_FIELDS } from './references';
