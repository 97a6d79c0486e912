// The steps of one Gateway's translation, run over its whole world (see ../translate.ts for the
// order and what each step reads). translate() runs them, or, for a change to a few routes,
// route-changes.ts runs them over those routes alone and merges the result into the last one.
import type { GatewayAttachment, ObjectRef, World } from '../model/world';
import type { Route } from '../model/objects';
import { attachmentOf, attachRoutes, validateGateway, type AttachOptions, type GatewayAnalysis } from '../attach/attach';
import { viewOf, type WorldView } from '../refs/lookup';
import { refsOf, resolveReferences, type ResolvedReferences } from '../refs/resolution';
import { orderGateway, type OrderedListener } from '../precedence/order';
import { backendClientRef, compileParts, compileUnattached } from '../compile/compile-gateway';
import { tableOfParts, type TableParts } from '../snapshot/table-parts';
import type { CompiledTable, CompiledUnattachedRoute } from '../compile/types';
import { gatewayStatusOf, type GatewayStatus } from '../status/gateway';
import { routeParentsOf, type RouteParents, type RouteParentStatus } from '../status/route';
import { policyAncestorsOf, type PolicyAncestors } from '../status/policy';
import { attachedListenerSetsOf, listenerSetStatusesOf, type ListenerSetStatus, type ListenerSetStatusEntry } from '../status/listener-set';
import { TranslationContext } from './context';
import type { ReadList } from '../model/chunked-list';

export type TranslateGatewayOptions = AttachOptions;

export interface PreviousStatuses {
  /** the Gateway's current status; default: the Gateway object's status in the world */
  gatewayStatus?: Partial<GatewayStatus>;
  /** the route entries this Gateway wrote before; default: each route's status.parents in the world */
  routeParents?: ReadList<RouteParents>;
  /** the BackendTLSPolicy entries this Gateway wrote before; default: each policy's status.ancestors in the world */
  policyAncestors?: PolicyAncestors[];
  /** the ListenerSet statuses this Gateway wrote before; default: each ListenerSet's status in the world */
  listenerSets?: ListenerSetStatusEntry[];
  /**
   * Instead of the three lists above: every status part this Gateway wrote before, by the object's
   * stream ("Kind/namespace/name"): a route's {parents}, a policy's {ancestors}, a ListenerSet's status.
   */
  parts?: ReadonlyMap<string, Record<string, unknown>>;
}

export interface GatewayTranslation {
  gatewayStatus: GatewayStatus;
  /** for every route with a parentRef naming this Gateway: its status.parents entries for this Gateway */
  routeParents: ReadList<RouteParents>;
  /** for every BackendTLSPolicy targeting a Service this Gateway's accepted routes reach: its status.ancestors entry for this Gateway */
  policyAncestors: PolicyAncestors[];
  /** for every ListenerSet whose parentRef names this Gateway: its status */
  listenerSetStatuses: ListenerSetStatusEntry[];
  attachment: GatewayAttachment;
}

export interface Translation extends GatewayTranslation {
  /** the compiled route table as its parts (snapshot/table-parts): what the worker stores and hashes */
  compiledParts: TableParts;
  /** the compiled route table, without the unattached routes (made from the parts when first read) */
  readonly table: CompiledTable;
  /** the routes that name the Gateway but are not attached, for resolve's explanations */
  unattached: CompiledUnattachedRoute[];
}

/** What the steps made on the way to the translation: what route-changes.ts keeps of a Gateway. */
export interface TranslationSteps {
  translation: Translation;
  analysis: GatewayAnalysis;
  refs: ResolvedReferences;
  ordered: OrderedListener[];
  view: WorldView;
  /** the Gateway's status.attachedListenerSets (undefined: left out) */
  attachedListenerSets: number | undefined;
}

/** Every step; undefined when the Gateway does not exist or its GatewayClass is not ours (nothing to write). */
export function translateSteps(
  world: World, gatewayRef: Pick<ObjectRef, 'namespace' | 'name'>, opts: TranslateGatewayOptions,
  previous: PreviousStatuses | undefined, ctx: TranslationContext,
): TranslationSteps | undefined {
  const view = viewOf(world, ctx);
  const validated = validateGateway(view, gatewayRef, opts);
  if (!validated) return undefined;
  const analysis: GatewayAnalysis = { ...validated, ...attachRoutes(view, validated) };
  const refs = resolveReferences(view, analysis.gateway, analysis.routes);
  const attachment = attachmentOf(analysis, ctx);
  const ordered = orderGateway(ctx, attachment);
  const client = refs.clientCertificate?.ok ? refs.clientCertificate : undefined;
  const parts = compileParts(view, attachment, ordered, {
    includeUnattached: false, addresses: analysis.verdict.addresses,
    ...(client ? { backendClientCertificate: backendClientRef(client) } : {}),
  });
  const { attachedListenerSets, ...made } = statuses(view, analysis, refs, opts, previous);
  const translation: Translation = {
    ...made,
    attachment,
    compiledParts: parts,
    get table() {
      return tableOf(parts);
    },
    unattached: compileUnattached(attachment.rejected),
  };
  return { translation, analysis, refs, ordered, view, attachedListenerSets };
}

// a table of indices is not needed to store or deliver a version: it is made for who reads it
const TABLES = new WeakMap<TableParts, CompiledTable>();
export function tableOf(parts: TableParts): CompiledTable {
  let t = TABLES.get(parts);
  if (!t) TABLES.set(parts, (t = tableOfParts(parts)));
  return t;
}

/** Step 6: the Gateway's status and its routes' status.parents entries, merged with what was there. */
function statuses(
  view: WorldView, analysis: GatewayAnalysis, refs: ResolvedReferences,
  opts: TranslateGatewayOptions, previous: PreviousStatuses | undefined,
): Pick<GatewayTranslation, 'gatewayStatus' | 'routeParents' | 'policyAncestors' | 'listenerSetStatuses'> & { attachedListenerSets: number | undefined } {
  const prevGateway = previous?.gatewayStatus ?? analysis.gateway.status;
  const parts = previous?.parts;
  let prevRoutes: Map<string, RouteParentStatus[]> | undefined;
  if (!parts && previous?.routeParents) {
    prevRoutes = new Map();
    for (const r of previous.routeParents) prevRoutes.set(`${r.kind}/${r.namespace}/${r.name}`, r.parents);
  }
  const previousFor = (route: Route): RouteParentStatus[] | undefined => parts
    ? parts.get(`${route.kind}/${route.metadata.namespace ?? ''}/${route.metadata.name}`)?.parents as RouteParentStatus[] | undefined
    : prevRoutes ? prevRoutes.get(`${route.kind}/${route.metadata.namespace ?? ''}/${route.metadata.name}`) : route.status?.parents;
  const prevPolicies = !parts && previous?.policyAncestors && new Map(previous.policyAncestors.map((p) => [`${p.namespace}/${p.name}`, p.ancestors]));
  const policyBefore = (ns: string, name: string) => parts
    ? parts.get(`BackendTLSPolicy/${ns}/${name}`)?.ancestors as never
    : prevPolicies
      ? prevPolicies.get(`${ns}/${name}`)
      : view.index.policiesByService.size ? view.world.backendTLSPolicies?.find((p) => p.metadata.namespace === ns && p.metadata.name === name)?.status?.ancestors : undefined;
  const prevSets = !parts && previous?.listenerSets ? new Map(previous.listenerSets.map((e) => [`${e.namespace}/${e.name}`, e.status])) : undefined;
  const previousSet = (namespace: string, name: string): Partial<ListenerSetStatus> | undefined => parts
    ? parts.get(`ListenerSet/${namespace}/${name}`) as Partial<ListenerSetStatus> | undefined
    : prevSets
      ? prevSets.get(`${namespace}/${name}`)
      : analysis.listenerSets.find((s) => s.namespace === namespace && s.name === name)?.listenerSet.status;
  const listenerSetStatuses = listenerSetStatusesOf(analysis, opts.now, previousSet);
  const attachedListenerSets = attachedListenerSetsOf(analysis, listenerSetStatuses);
  return {
    attachedListenerSets,
    gatewayStatus: gatewayStatusOf(analysis, refs, opts.now, prevGateway, attachedListenerSets),
    routeParents: routeParentsOf(analysis, refsOf(view, refs), opts.controllerName, opts.now, previousFor, view.ctx),
    policyAncestors: policyAncestorsOf(view, analysis, refsOf(view, refs), opts.controllerName, opts.now, policyBefore),
    listenerSetStatuses,
  };
}

