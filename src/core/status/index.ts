export * from './reasons';
export { SUPPORTED_FEATURES } from './features';
export { gatewayClassStatus } from './gatewayclass';
export { mergeConditions, draft } from './conditions';
