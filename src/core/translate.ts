// Per Gateway: validate its listeners, attach the routes that name it, resolve their references,
// and produce every status this Gateway is responsible for — its own, and the status.parents
// entries of the routes that name it — together with the attachment that compile turns into the
// route table. Recomputing one Gateway refreshes all the route entries it owns, so a change to the
// Gateway alone still reaches its routes.
import type { GatewayAttachment, ObjectRef, World } from './model/world';
import type { Route } from './model/objects';
import { analyzeGateway, attachmentOf, type AttachOptions } from './attach/attach';
import { gatewayStatusOf, type GatewayStatus } from './status/gateway';
import { routeParentsOf, type RouteParents, type RouteParentStatus } from './status/route';

export type TranslateGatewayOptions = AttachOptions;

export interface PreviousStatuses {
  /** the Gateway's current status; default: the Gateway object's status in the world */
  gatewayStatus?: Partial<GatewayStatus>;
  /** the route entries this Gateway wrote before; default: each route's status.parents in the world */
  routeParents?: RouteParents[];
}

export interface GatewayTranslation {
  gatewayStatus: GatewayStatus;
  /** for every route with a parentRef naming this Gateway: its status.parents entries for this Gateway */
  routeParents: RouteParents[];
  attachment: GatewayAttachment;
}

/** undefined when the Gateway does not exist or its GatewayClass is not ours (nothing to write). */
export function translateGateway(
  world: World, gatewayRef: Pick<ObjectRef, 'namespace' | 'name'>, opts: TranslateGatewayOptions, previous?: PreviousStatuses,
): GatewayTranslation | undefined {
  const analysis = analyzeGateway(world, gatewayRef, opts);
  if (!analysis) return undefined;
  const prevGateway = previous?.gatewayStatus ?? analysis.gateway.status;
  const prevRoutes = previous?.routeParents
    ? new Map(previous.routeParents.map((r) => [`${r.kind}/${r.namespace}/${r.name}`, r.parents]))
    : undefined;
  const previousFor = (route: Route): RouteParentStatus[] | undefined =>
    prevRoutes ? prevRoutes.get(`${route.kind}/${route.metadata.namespace ?? ''}/${route.metadata.name}`) : route.status?.parents;
  return {
    gatewayStatus: gatewayStatusOf(world, analysis, opts.now, prevGateway),
    routeParents: routeParentsOf(world, analysis, opts.controllerName, opts.now, previousFor),
    attachment: attachmentOf(analysis),
  };
}

export { gatewayClassStatus } from './status/gatewayclass';
export { attachGateway } from './attach/attach';
export { resolveBackendRef } from './refs/backends';
