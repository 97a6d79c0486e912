export { validateGateway, attachRoutes, attachmentOf } from './attach';
export type { AttachOptions, GatewayAnalysis, ValidatedGateway, RouteAttachments, ParentOutcome } from './attach';
export type { ListenerAnalysis } from './listeners';
export { matchListenerHostname, hostnamesOverlap } from './hostnames';
export { compileLabelSelector } from './namespaces';
export { unsupportedRules } from './rules';
