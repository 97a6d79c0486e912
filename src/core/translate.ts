// Per Gateway, in explicit steps, each a typed value (as Envoy Gateway's Translate() runs its
// Process* steps over one TranslatorContext):
//   1. validate   the Gateway and its listeners              attach/attach.ts validateGateway
//   2. attach     parentRefs x listeners, allowedRoutes,     attach/attach.ts attachRoutes
//                 hostnames
//   3. resolve    the references of the Gateway and routes   refs/resolution.ts resolveReferences
//   4. order      every listener's entries by precedence     precedence/order.ts orderGateway
//   5. compile    the route table, as its parts                compile/compile-gateway.ts compileParts
//   6. statuses   the Gateway's, its ListenerSets', and the  status/gateway.ts, status/route.ts,
//                 status.parents entries of the routes        status/listener-set.ts
//                 that name it or them
// Recomputing one Gateway refreshes all the route entries it owns, so a change to the Gateway alone
// still reaches its routes. The memos live in the TranslationContext the caller passes; a caller
// that keeps one across calls gets incremental recomputes.
import type { ObjectRef, World } from './model/world';
import { TranslationContext } from './translate/context';
import { translateSteps, type PreviousStatuses, type TranslateGatewayOptions, type Translation } from './translate/steps';
import { fromRouteChanges, keepShares } from './translate/route-changes';

export { TranslationContext, DEFAULT_CAPACITY, type TranslationContextOptions } from './translate/context';
export { translationCounts } from './translate/route-changes';
export type { GatewayTranslation, PreviousStatuses, TranslateGatewayOptions, Translation } from './translate/steps';

/**
 * Every step; undefined when the Gateway does not exist or its GatewayClass is not ours (nothing to
 * write). With a context kept across calls, a change to a few routes runs the steps over those
 * routes alone (translate/route-changes.ts); the answer is the same.
 */
export function translate(
  world: World, gatewayRef: Pick<ObjectRef, 'namespace' | 'name'>, opts: TranslateGatewayOptions,
  previous?: PreviousStatuses, ctx: TranslationContext = new TranslationContext(),
): Translation | undefined {
  const merged = fromRouteChanges(world, gatewayRef, opts, previous, ctx);
  if (merged) return merged;
  const steps = translateSteps(world, gatewayRef, opts, previous, ctx);
  keepShares(ctx, world, gatewayRef, opts, steps);
  return steps?.translation;
}

export { gatewayClassStatus } from './status/gatewayclass';
