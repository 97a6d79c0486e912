// A change to a few routes of a Gateway, translated in proportion to the change: the steps run over
// the changed routes alone (translateSteps on a world that holds only them), and their share of the
// result (status entries, attachedRoutes counts, unattached routes, the table's route, rule and
// entry parts) replaces the share the same routes had in the Gateway's last translation. A route's
// share depends on the route, the Gateway and the world's other objects, never on another route,
// except for where its entries go in a listener's lists; those lists are in a total order (the
// ladders end at the route's name, rule, match and hostname), so putting each entry where the order
// puts it gives what sorting them all gives. When anything else changed (the Gateway, a Service,
// a grant, a Namespace, a Secret, the options) the steps run over the whole world, and so they do
// for a Gateway with ListenerSets or BackendTLSPolicies, whose statuses depend on every route.
import { SmallMap } from '../model/small-map';
import { noItems, sharedIndices, trimmed } from '../model/trimmed';
import type { ObjectRef, World } from '../model/world';
import type { Route } from '../model/objects';
import type { RouteParents } from '../status/route';
import { gatewayStatusOf } from '../status/gateway';
import { noteRouteParentsChange, writtenFrom } from '../status/written-parts';
import type { CompiledRoute, CompiledUnattachedRoute } from '../compile/types';
import { compileUnattached, tableRouteOrder, unattachedOrder } from '../compile/compile-gateway';
import { entryOrder, routeKey, type RoutePlan } from '../precedence/order';
import type { RejectedRoute } from '../model/world';
import { cmp } from '../refs/lookup';
import { ChunkedPartList, chunkedIds, ENTRY_LISTS, entriesKey, type Part, type PartList, type TableParts } from '../snapshot/table-parts';
import { ruleRouteOf } from '../snapshot/pieced-parts';
import { ChunkedList, type ListAt } from '../model/chunked-list';
import { rememberChanges } from '../snapshot/list-changes';
import { nextParts, type PartsEdit } from '../snapshot/part-map';
import { noteEdited, SpanOfEdits } from '../snapshot/list-edits';
import { keepRecent } from '../model/recent';
import { sameItems } from '../model/same-items';
import { replacedPositions } from '../model/replaced-items';
import { findSorted, findSortedAt } from '../model/sorted';
import { streamOfObject } from '../objects/keys';
import { deepEqual } from '../objects/canonical';
import { memoSlot, TranslationContext } from './context';
import { tableOf, translateSteps, type PreviousStatuses, type TranslateGatewayOptions, type Translation, type TranslationSteps } from './steps';

/**
 * Beyond this many routes changed at once (64, or a quarter of the Gateway's routes when that is
 * more), running the steps over the whole world is as cheap: the steps over the changed routes
 * cost in proportion to them, and each merged route costs a search and a splice of each list.
 */
const changeLimit = (routes: number) => Math.max(64, routes >> 2);

type PlanEntry = { plan: RoutePlan; id: string };

/** One route's share of its Gateway's translation. */
interface RouteShare {
  route: Route;
  kind: string;
  namespace: string;
  name: string;
  /** the stream of its status part: Kind/namespace/name */
  stream: string;
  /** its id in the table's routes */
  rk: string;
  parents: RouteParents;
  /** the listeners whose attachedRoutes count it */
  counted: number[];
  unattached: CompiledUnattachedRoute[];
  /** by entriesKey: its entries, in their list's order */
  entries: Map<string, PlanEntry[]>;
  /** its part in the table's routes, and the ids of its rules there (none when it has no entries) */
  routePart: Part | undefined;
  rules: string[];
}

/** What a Gateway's translation was made from besides its routes: compared by identity. */
interface Inputs {
  arrays: unknown[];
  gateways: unknown[];
  options: string;
}

interface GatewayShares {
  inputs: Inputs;
  /** every route of the world, by stream (a route the Gateway's class does not claim has no share) */
  objects: Map<string, Route>;
  /** the world's routes, as it held them */
  routes: ListAt<Route>;
  /** the shares in the order of the analysis's routes (kind, namespace, name) */
  order: ChunkedList<RouteShare>;
  byStream: Map<string, RouteShare>;
  counts: number[];
  /** by entriesKey: each entry list's entries, in the order of the parts' ids */
  sorted: Map<string, ChunkedList<PlanEntry>>;
  /** the entries key of each list and the ladder it is in */
  lists: { key: string; order: (a: never, b: never) => number }[];
  translation: Translation;
}

const SHARES = memoSlot('translate.routeShares', () => new Map<string, GatewayShares>());
const COUNTS = memoSlot('translate.routeChangeCounts', () => ({ merged: 0, whole: 0 }));

/** How many translations in `ctx` were merged from route changes, and how many ran over the whole world. */
export function translationCounts(ctx: TranslationContext): { merged: number; whole: number } {
  return { ...ctx.memo(COUNTS) };
}

const WORLD_ARRAYS = ['gatewayClasses', 'referenceGrants', 'namespaces', 'services', 'endpointSlices', 'secrets', 'configMaps', 'backendTLSPolicies', 'listenerSets'] as const;
const LADDER_OF = { httpRoutes: 'http', grpcRoutes: 'grpc', tlsRoutes: 'tls', tcpRoutes: 'tcp', udpRoutes: 'udp' } as const;

function inputsOf(world: World, opts: TranslateGatewayOptions): Inputs {
  return {
    arrays: WORLD_ARRAYS.map((k) => world[k] ?? null),
    // the Gateway object is remade with its last status; what the steps read of it is kept
    gateways: world.gateways.flatMap((g) => [g.metadata, g.spec]),
    options: JSON.stringify([opts.controllerName, opts.supportedFeatures ?? null, opts.unavailablePorts ?? null, opts.addressPool ?? null]),
  };
}

const sameInputs = (a: Inputs, b: Inputs) => a.options === b.options && sameItems(a.arrays, b.arrays) && sameItems(a.gateways, b.gateways);
const streamOf = (r: Route): string => streamOfObject(r);
const gatewayKey = (ref: Pick<ObjectRef, 'namespace' | 'name'>) => `${ref.namespace}/${ref.name}`;
const byKindNamespaceName = (a: RouteShare, b: RouteShare) => cmp(a.kind, b.kind) || cmp(a.namespace, b.namespace) || cmp(a.name, b.name);

/** Each route's share of what the steps made, and each entry list's entries; undefined when the parts are not made one to one from them. */
function sharesOf(steps: TranslationSteps): { shares: RouteShare[]; sorted: Map<string, PlanEntry[]>; lists: GatewayShares['lists'] } | undefined {
  const { analysis, ordered, translation } = steps;
  const parts = translation.compiledParts;
  const byRoute = new Map<Route, RouteShare>();
  const byRk = new Map<string, RouteShare>();
  const parents = [...translation.routeParents];
  const shares = analysis.routes.map((route, i): RouteShare => {
    const md = route.metadata;
    const stream = streamOf(route);
    // the same words as the stream, for a route with a namespace: one string for both
    const rk = md.namespace !== undefined ? stream : routeKey(route.kind, 'default', md.name);
    const s: RouteShare = {
      route, kind: route.kind, namespace: md.namespace ?? '', name: md.name, stream, rk,
      // every member in the literal: one added later went to a second object (40 bytes a route)
      parents: parents[i], counted: [], unattached: noItems(), entries: new SmallMap(), routePart: undefined, rules: [],
    };
    byRoute.set(route, s);
    byRk.set(rk, s);
    return s;
  });
  if (parents.length !== shares.length) return undefined;
  const rejected = new Map<RouteShare, RejectedRoute[]>();
  for (const o of analysis.outcomes) {
    const s = byRoute.get(o.route)!;
    for (const li of o.counted) if (!s.counted.includes(li)) s.counted.push(li);
    if (!o.accepted) (rejected.get(s) ?? rejected.set(s, []).get(s)!).push({ kind: o.kind, route: o.route, parentRefIndex: o.parentRefIndex, reason: o.reason, message: o.message });
  }
  for (const [s, r] of rejected) s.unattached = compileUnattached(r);
  const sorted = new Map<string, PlanEntry[]>();
  const lists: GatewayShares['lists'] = [];
  if (parts.listeners.ids.length !== ordered.length) return undefined;
  for (let i = 0; i < ordered.length; i++) {
    const o = ordered[i];
    const lid = parts.listeners.ids[i];
    const byName = { httpRoutes: o.http, grpcRoutes: o.grpc, tlsRoutes: o.tls, tcpRoutes: o.tcp, udpRoutes: o.udp };
    for (const name of ENTRY_LISTS) {
      const entries = byName[name] as PlanEntry[] | undefined;
      if (!entries) continue;
      const key = entriesKey(lid, name);
      const ids = parts.entries.get(key)?.ids;
      if (!ids || ids.length !== entries.length) return undefined;
      for (let k = 0; k < entries.length; k++) {
        const e = entries[k];
        const s = byRk.get(e.plan.rk);
        if (ids[k] !== e.id || !s) return undefined;
        (s.entries.get(key) ?? s.entries.set(key, []).get(key)!).push(e);
      }
      sorted.set(key, entries);
      lists.push({ key, order: entryOrder(LADDER_OF[name]) });
    }
  }
  if (parts.entries.size !== sorted.size) return undefined;
  for (const id of parts.routes.ids) {
    const s = byRk.get(id);
    if (!s) return undefined;
    s.routePart = parts.routes.parts.get(id);
  }
  for (const id of parts.rules.ids) {
    const s = byRk.get(ruleRouteOf(parts.rules.parts.get(id)!));
    if (!s) return undefined;
    s.rules.push(id);
  }
  for (const s of shares) {
    s.counted = sharedIndices(s.counted);
    s.rules = trimmed(s.rules);
    for (const [k, l] of s.entries) s.entries.set(k, trimmed(l));
  }
  return { shares, sorted, lists };
}

/** After the steps ran over the whole world: what the next change to a few routes starts from. */
export function keepShares(
  ctx: TranslationContext, world: World, ref: Pick<ObjectRef, 'namespace' | 'name'>, opts: TranslateGatewayOptions, steps: TranslationSteps | undefined,
): void {
  const memo = ctx.memo(SHARES);
  const key = gatewayKey(ref);
  if (steps) ctx.memo(COUNTS).whole++;
  const made = steps && eligible(world) ? sharesOf(steps) : undefined;
  const objects = made && new Map<string, Route>();
  if (objects) for (const r of world.routes) objects.set(streamOf(r), r);
  if (!made || !objects || objects.size !== world.routes.length) {
    memo.delete(key);
    return;
  }
  keepRecent(memo, key, {
    inputs: inputsOf(world, opts), objects, routes: world.routes, order: ChunkedList.from(made.shares), byStream: new Map(made.shares.map((s) => [s.stream, s])),
    counts: countsOf(steps!, made.shares), sorted: new Map([...made.sorted].map(([k, l]) => [k, ChunkedList.from(l)])), lists: made.lists, translation: steps!.translation,
  }, ctx.capacity);
}

function countsOf(steps: TranslationSteps, shares: RouteShare[]): number[] {
  const counts = steps.analysis.listeners.map(() => 0);
  for (const s of shares) for (const li of s.counted) counts[li]++;
  return counts;
}

// ListenerSets count routes on their own listeners, and BackendTLSPolicies' ancestors follow every
// accepted route's backends: Gateways with either are translated whole
function eligible(world: World): boolean {
  return !world.listenerSets?.length && !world.backendTLSPolicies?.length;
}

/**
 * The translation of `world` from the last one made in `ctx` for the Gateway, when what changed is
 * a few routes; undefined when the steps must run over the whole world. The answer is the one
 * translateSteps gives for the whole world (test/unit/route-changes.test.ts holds it to that).
 */
export function fromRouteChanges(
  world: World, ref: Pick<ObjectRef, 'namespace' | 'name'>, opts: TranslateGatewayOptions,
  previous: PreviousStatuses | undefined, ctx: TranslationContext,
): Translation | undefined {
  const memo = ctx.memo(SHARES);
  const key = gatewayKey(ref);
  const state = memo.get(key);
  const written = previous?.parts;
  if (!state || !written || !eligible(world) || !sameInputs(state.inputs, inputsOf(world, opts))) return undefined;
  // the routes whose object is new, and those that went
  const changed = new Map<string, Route | undefined>();
  const limit = changeLimit(state.order.length);
  if (replacedInPlace(state.routes, world.routes, changed, limit)) {
    // the same routes in the same places, a few of them remade: nothing else to look for
  } else if (!changedRoutes(state, world, changed, limit)) return undefined;
  // a route whose status entries are not what the last translation made is made again (the
  // written entries came from elsewhere: the store, another process); a map noted as written from
  // the last translation's entries holds them all, and entries read back from the store are
  // compared by value (a run whose write lost a race reads them back: at 50,000 routes a whole
  // translation instead costs seconds)
  if (writtenFrom(written) !== state.translation.routeParents) {
    for (const s of state.order) {
      if (changed.has(s.stream)) continue;
      const w = written.get(s.stream)?.parents;
      if (w !== s.parents.parents && !deepEqual(w, s.parents.parents) && changed.set(s.stream, s.route).size > limit) return undefined;
    }
  }
  const routes: Route[] = [];
  for (const r of changed.values()) if (r) routes.push(r);
  // the merge edits the state's tables in place: until it is done there is none (a translation
  // that fails on the way leaves the next one to the whole world)
  memo.delete(key);
  const steps = translateSteps({ ...world, routes }, ref, opts, previous, ctx);
  const made = steps && sharesOf(steps);
  if (!steps || !made) return undefined;
  const merged = merge(state, steps, made, changed, { world, ref, opts, previous });
  if (!merged) return undefined;
  for (const [stream, r] of changed) {
    if (r) state.objects.set(stream, r);
    else state.objects.delete(stream);
  }
  keepRecent(memo, key, { ...merged, inputs: inputsOf(world, opts), objects: state.objects, routes: world.routes }, ctx.capacity);
  ctx.memo(COUNTS).merged++;
  return merged.translation;
}

/** When `now` holds the routes `before` held in the same places, some remade (the same streams): those, in `changed`. */
function replacedInPlace(before: ListAt<Route>, now: ListAt<Route>, changed: Map<string, Route | undefined>, limit: number): boolean {
  const at = replacedPositions(before, now, limit);
  if (!at) return false;
  for (const i of at) {
    const route = now.at(i)!;
    const stream = streamOf(route);
    if (stream !== streamOf(before.at(i)!)) return false;
    changed.set(stream, route);
  }
  return true;
}

/** The routes of `world` that are new or remade, and those that went, by stream, in `changed`; false beyond the limit. */
function changedRoutes(state: GatewayShares, world: World, changed: Map<string, Route | undefined>, limit: number): boolean {
  changed.clear();
  let present = 0;
  for (const r of world.routes) {
    const stream = streamOf(r);
    const was = state.objects.get(stream);
    if (was === r) present++;
    else {
      if (was) present++;
      if (changed.has(stream)) return false;
      changed.set(stream, r);
      if (changed.size > limit) return false;
    }
  }
  if (present < state.objects.size) {
    const now = new Set<string>();
    for (const r of world.routes) now.add(streamOf(r));
    for (const stream of state.objects.keys()) if (!now.has(stream) && changed.set(stream, undefined).size > limit) return false;
  }
  return true;
}

/** The last translation with the changed routes' shares replaced by the ones `steps` made. */
function merge(
  state: GatewayShares, steps: TranslationSteps, made: NonNullable<ReturnType<typeof sharesOf>>, changed: Map<string, Route | undefined>,
  whole: { world: World; ref: Pick<ObjectRef, 'namespace' | 'name'>; opts: TranslateGatewayOptions; previous: PreviousStatuses | undefined },
): Omit<GatewayShares, 'inputs' | 'objects' | 'routes'> | undefined {
  const before = state.translation.compiledParts;
  const parts = steps.translation.compiledParts;
  // what the steps make of the Gateway alone must be what they made before
  if (parts.head.text !== before.head.text || !sameList(parts.listeners, before.listeners)) return undefined;
  if (made.lists.length !== state.lists.length || made.lists.some((l, i) => l.key !== state.lists[i].key)) return undefined;

  const gone = [...changed.keys()].map((s) => state.byStream.get(s)).filter((s): s is RouteShare => !!s);
  const order = state.order.edit();
  const byStream = state.byStream;
  const counts = state.counts.slice();
  for (const s of gone) {
    const at = findSortedAt(order, s, byKindNamespaceName);
    if (order.at(at) !== s) return undefined;
    order.remove(at, 1);
    byStream.delete(s.stream);
    for (const li of s.counted) counts[li]--;
  }
  for (const s of made.shares) {
    if (byStream.has(s.stream)) return undefined;
    order.insert(findSortedAt(order, s, byKindNamespaceName), [s]);
    byStream.set(s.stream, s);
    for (const li of s.counted) counts[li]++;
  }

  // the table's routes and rules, by the table's route order
  const metaOf = (rk: string): CompiledRoute => (parts.routes.parts.get(rk) ?? before.routes.parts.get(rk))!.item as unknown as CompiledRoute;
  const touched = new Map<string, Set<string>>();
  const routeList = patchList(before.routes, touched, 'routes', (edit) => {
    for (const s of gone) if (s.routePart) edit.remove(findSortedAt(edit.ids, s.routePart.item as unknown as CompiledRoute, (id, m) => tableRouteOrder(metaOf(id), m)), [s.rk]);
    for (const s of made.shares) if (s.routePart) {
      edit.insert(findSortedAt(edit.ids, s.routePart.item as unknown as CompiledRoute, (id, m) => tableRouteOrder(metaOf(id), m) || 1), [s.rk], parts.routes);
    }
  });
  const ruleRoute = (id: string) => metaOf(ruleRouteOf((before.rules.parts.get(id) ?? parts.rules.parts.get(id))!));
  const ruleList = patchList(before.rules, touched, 'rules', (edit) => {
    for (const s of gone) if (s.rules.length) edit.remove(findSortedAt(edit.ids, s.routePart!.item as unknown as CompiledRoute, (id, m) => tableRouteOrder(ruleRoute(id), m)), s.rules);
    for (const s of made.shares) if (s.rules.length) {
      edit.insert(findSortedAt(edit.ids, s.routePart!.item as unknown as CompiledRoute, (id, m) => tableRouteOrder(ruleRoute(id), m) || 1), s.rules, parts.rules);
    }
  });
  if (!routeList || !ruleList) return undefined;

  // each listener's entry lists, by their ladders
  const entries = new Map(before.entries);
  const sorted = new Map(state.sorted);
  for (const { key, order: ladder } of state.lists) {
    const out = gone.some((s) => s.entries.has(key)) || made.shares.some((s) => s.entries.has(key));
    if (!out) continue;
    const list = state.sorted.get(key)!.edit();
    const ladderOf = ladder as (a: PlanEntry, b: PlanEntry) => number;
    const patched = patchList(before.entries.get(key)!, touched, key, (edit) => {
      for (const s of gone) for (const e of s.entries.get(key) ?? []) {
        const at = findSortedAt(list, e, ladderOf);
        if (list.at(at) !== e) throw new NotInPlace();
        list.remove(at, 1);
        edit.remove(at, [e.id]);
      }
      const from = parts.entries.get(key)!;
      for (const s of made.shares) for (const e of s.entries.get(key) ?? []) {
        const at = findSortedAt(list, e, ladderOf);
        list.insert(at, [e]);
        edit.insert(at, [e.id], from);
      }
    });
    if (!patched) return undefined;
    entries.set(key, patched);
    sorted.set(key, list.done());
  }

  const shares = order.done();
  const compiledParts: TableParts = { head: before.head, listeners: before.listeners, routes: routeList, rules: ruleList, entries };
  rememberChanges(compiledParts, before, touched);
  const unattachedChanged = gone.some((s) => s.unattached.length) || made.shares.some((s) => s.unattached.length);
  const { analysis, refs, attachedListenerSets, translation: reduced } = steps;
  const translation = translationOf({
    gatewayStatus: gatewayStatusOf(analysis, refs, whole.opts.now, whole.previous?.gatewayStatus ?? analysis.gateway.status, attachedListenerSets, counts),
    routeParents: shares.mapped(parentsOfShare),
    policyAncestors: reduced.policyAncestors,
    listenerSetStatuses: reduced.listenerSetStatuses,
    compiledParts,
    unattached: unattachedChanged ? shares.toArray().flatMap((s) => s.unattached).sort(unattachedOrder) : state.translation.unattached,
  }, whole);
  noteRouteParentsChange(translation.routeParents, {
    previous: state.translation.routeParents,
    entries: new Map([...changed.keys()].map((stream) => [stream, byStream.get(stream)?.parents])),
  });
  return { order: shares, byStream, counts, sorted, lists: state.lists, translation };
}

// a module function, not a closure made in merge: the list keeps it (see translationOf)
const parentsOfShare = (s: RouteShare): RouteParents => s.parents;

// Made apart from merge: a getter made there would keep everything merge saw alive, the state
// before included, and through it every translation before it.
function translationOf(
  t: Omit<Translation, 'attachment' | 'table'>,
  whole: { world: World; ref: Pick<ObjectRef, 'namespace' | 'name'>; opts: TranslateGatewayOptions; previous: PreviousStatuses | undefined },
): Translation {
  let attachment: Translation['attachment'] | undefined;
  let w: typeof whole | undefined = whole;
  return {
    ...t,
    // nothing that stores or delivers a version reads it: made, over the whole world, for who does
    get attachment() {
      if (!attachment) {
        attachment = translateSteps(w!.world, w!.ref, w!.opts, w!.previous, new TranslationContext())!.translation.attachment;
        w = undefined;
      }
      return attachment;
    },
    get table() {
      return tableOf(t.compiledParts);
    },
  };
}

function sameList(a: PartList, b: PartList): boolean {
  return a === b || (sameItems(a.ids, b.ids) && a.ids.every((id) => a.parts.get(id)!.text === b.parts.get(id)!.text));
}

/** A route's parts were not where its order puts them: the shares do not describe the parts (translated whole instead). */
class NotInPlace extends Error {}

interface ListEdit {
  readonly ids: { readonly length: number; at(i: number): string | undefined };
  /** the ids at `at` are these: they go */
  remove(at: number, ids: readonly string[]): void;
  /** these ids, with their parts in `from`, go at `at` */
  insert(at: number, ids: readonly string[], from: PartList): void;
}

/** `base` edited (a new list, `base` is left alone; `base` itself when nothing changed), the ids edited noted in `touched` under `label`. */
function patchList(base: PartList, touched: Map<string, Set<string>>, label: string, edits: (edit: ListEdit) => void): PartList | undefined {
  let parts: PartsEdit | undefined;
  let out: ChunkedPartList | undefined;
  const ids = chunkedIds(base).edit();
  const noted = touched.get(label) ?? new Set<string>();
  // where the new list differs from the base (the hash cuts only that stretch into chunks anew)
  const span = new SpanOfEdits();
  // the next list takes the base's map over (snapshot/part-map.ts): the base still reads as it did
  const edit = (): PartsEdit => {
    if (!parts) ({ next: out, edit: parts } = nextParts(base, (m) => new ChunkedPartList(ChunkedList.empty(), m)));
    return parts;
  };
  const editor: ListEdit = {
    ids,
    remove(at, gone) {
      for (let k = 0; k < gone.length; k++) if (ids.at(at + k) !== gone[k]) throw new NotInPlace();
      ids.remove(at, gone.length);
      span.remove(at, gone.length);
      const e = edit();
      for (const id of gone) {
        e.delete(id);
        noted.add(id);
      }
    },
    insert(at, added, from) {
      const e = edit();
      for (const id of added) {
        const p = from.parts.get(id);
        if (!p || out!.parts.has(id)) throw new NotInPlace();
        e.set(id, p);
        noted.add(id);
      }
      ids.insert(at, added);
      span.insert(at, added.length);
    },
  };
  try {
    edits(editor);
  } catch (e) {
    if (e instanceof NotInPlace) return undefined;
    throw e;
  }
  if (!out) return base;
  out.chunked = ids.done();
  const edited = span.of(base);
  if (edited) noteEdited(out, edited);
  touched.set(label, noted);
  return out;
}
