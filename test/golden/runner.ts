// The golden runner: a case (test/golden/cases/<name>.in.yaml, multi-document manifests) runs
// through the production recompute, phase by phase; the output holds, per phase, every status as
// the API would read it back, the changes' affected Gateways, the attachments, the resolved
// backends, each Gateway's compiled table and the answers to the case's requests.
//
// Input documents besides ordinary objects:
//   kind: GoldenOptions  {now, controllerName?, supportedFeatures?, unavailablePorts?, addressPool?, epoch?,
//                        description?, requests?} (first document; options of the whole case;
//                        `epoch` is the first creationTimestamp given)
//   kind: GoldenStep     {now, description?, delete?: [{kind, namespace?, name}], supportedFeatures?,
//                        requests?} starts the next phase: its deletes, then the documents after it,
//                        are applied to the previous phase's objects
// A request is a resolve request plus `gateway` ("ns/name", default: the first Gateway) and
// `context` ({random?, readable?: namespaces}).
//
// Objects are written with the API's rules (test/support/object-store). A status given with an
// object stands for what was written before: a Gateway's or GatewayClass's for this controller's
// last write, a route's parent entries of this controller for the last write of the Gateway they
// name, anything else (other controllers' entries) for a part of someone else. Each Gateway is then
// recomputed as the worker does (src/service/reconcile.ts): its world loaded by loadGatewayWorld
// from a MemorySource, translateLoaded, planRecompute against what the previous phase wrote, and
// the plan applied to status parts kept as the store keeps them; statuses are read back merged.
import { Document, isMap, isPair, isScalar, isSeq, parseAllDocuments, visit } from 'yaml';
import type { K8sObject } from '../../src/core/model/objects';
import { worldOf, type World } from '../../src/core/model/world';
import { affectedGateways } from '../../src/core/deps';
import { routeRefs } from '../../src/core/refs';
import { viewOf } from '../../src/core/refs/lookup';
import { isRouteKind } from '../../src/core/model/kinds';
import { gatewayClassStatus, type GatewayTranslation } from '../../src/core/translate';
import type { CompiledTable } from '../../src/core/compile';
import { resolve } from '../../src/core/resolve';
import { mergeStatusParts } from '../../src/core/objects/status-parts';
import { MemorySource, streamOf } from '../../src/adapters/store/memory-source';
import { loadGatewayWorld, loaderMemo, gatewayStream } from '../../src/adapters/store/world-loader';
import type { RecomputePlan, Written } from '../../src/adapters/store/recompute-write';
import { scoped } from '../../src/adapters/store/scope';
import { translateLoaded } from '../../src/service/reconcile';
import { TranslationContext } from '../../src/core/translate';
import { planRecompute } from '../../src/service/recompute-plan';
import { CONTROLLER, Store } from '../support/object-store';
import { conformanceEndpointSlice } from '../support/conformance';
import { testEndpointSlices } from '../support/compile-world';

const CLUSTER_KINDS = new Set(['GatewayClass', 'Namespace']);
/** the owner of statuses given with the input that are not this controller's: sorts before every controller's parts */
const INPUT_OWNER = '';

interface Request { gateway?: string; context?: { random?: number; readable?: string[] }; [k: string]: unknown }
interface Options { [other: string]: unknown; now?: string; controllerName?: string; supportedFeatures?: string[]; unavailablePorts?: number[]; addressPool?: string[]; epoch?: string; description?: string; requests?: Request[] }
interface Step { now?: string; description?: string; delete?: { kind: string; namespace?: string; name: string }[]; supportedFeatures?: string[]; requests?: Request[] }
interface Phase { step: Step; docs: K8sObject[] }

export function phasesOf(text: string): { options: Options; phases: Phase[] } {
  const docs = parseAllDocuments(text).map((d) => d.toJS()).filter((d) => d && typeof d === 'object');
  let options: Options = {};
  const phases: Phase[] = [{ step: {}, docs: [] }];
  for (const d of docs) {
    if (d.kind === 'GoldenOptions') options = d;
    else if (d.kind === 'GoldenStep') phases.push({ step: d, docs: [] });
    else phases[phases.length - 1].docs.push(d);
  }
  return { options, phases };
}

const id = (o: K8sObject) => (o.metadata.namespace ? `${o.metadata.namespace}/${o.metadata.name}` : o.metadata.name);

const emptyWritten = (): Written => ({ gate: null, parts: new Map(), deps: '[]', hash: null });

/** Status parts as the store's status_parts table holds them: stream -> owner -> status. */
class StatusParts {
  private readonly parts = new Map<string, Map<string, Record<string, unknown>>>();
  of(stream: string): Map<string, Record<string, unknown>> {
    let m = this.parts.get(stream);
    if (!m) this.parts.set(stream, (m = new Map()));
    return m;
  }
  get(stream: string, owner: string): Record<string, unknown> | undefined {
    return this.parts.get(stream)?.get(owner);
  }
  set(stream: string, owner: string, status: unknown): void {
    this.of(stream).set(owner, status as Record<string, unknown>);
  }
  delete(stream: string, owner: string): void {
    this.parts.get(stream)?.delete(owner);
  }
  dropStream(stream: string): void {
    this.parts.delete(stream);
  }
  /** what writeRecompute does with a plan, with the same rules */
  apply(plan: RecomputePlan): void {
    for (const c of plan.statusChanges) this.set(c.stream, c.owner, c.status);
    const rp = plan.removeParts;
    if (rp) {
      for (const [stream, owners] of this.parts) {
        if (!owners.has(plan.gateKey)) continue;
        if ('keep' in rp ? !rp.keep.includes(stream) : rp.streams.includes(stream)) owners.delete(plan.gateKey);
      }
    }
    if (plan.removeGatewayStatus) this.delete(plan.owner, plan.scope);
  }
  /** the status the API reads: the parts merged */
  status(stream: string): Record<string, unknown> | undefined {
    const owners = this.parts.get(stream);
    return mergeStatusParts(owners ? [...owners].map(([owner, status]) => ({ owner, status })) : []);
  }
}

export interface CaseRun {
  /** the out file's text */
  text: string;
  /** each phase's tables, rendered */
  tables: string[];
  /** each phase's compiled tables by Gateway ("ns/name"), for the data planes' translations */
  compiled: Map<string, CompiledTable>[];
}

/** `reverse`: every list of each loaded world in reverse order (tables must not depend on it). */
export async function runCase(text: string, opts: { reverse?: boolean } = {}): Promise<CaseRun> {
  const { options, phases } = phasesOf(text);
  const controllerName = options.controllerName ?? CONTROLLER;
  const store = new Store(Date.parse(options.epoch ?? '2026-01-01T00:00:00.000Z'));
  const parts = new StatusParts();
  const written = new Map<string, Written>();
  const memo = loaderMemo(128);
  // one translation memory for the whole case, as a worker keeps one across recomputes
  const ctx = new TranslationContext();
  const source = new MemorySource();
  /** the object each stream of the source was last put from */
  const fed = new Map<string, K8sObject>();
  const stand = new WeakMap<K8sObject, K8sObject[]>();
  const slicesOf = (svc: K8sObject) => stand.get(svc) ?? stand.set(svc, [conformanceEndpointSlice(svc), ...testEndpointSlices(svc)].filter(Boolean)).get(svc)!;
  const out: string[] = [];
  const tablesOut: string[] = [];
  const compiled: Map<string, CompiledTable>[] = [];
  let features = options.supportedFeatures;
  const writtenFor = (gw: string) => written.get(gw) ?? written.set(gw, emptyWritten()).get(gw)!;

  // what a status given with an object stands for (see the head of this file)
  const seedStatus = (o: K8sObject) => {
    const stream = streamOf(o);
    parts.dropStream(stream);
    for (const w of written.values()) w.parts.delete(stream);
    const status = o.status as Record<string, any>;
    if (o.kind === 'Gateway') {
      writtenFor(id(o)).gatewayStatus = status;
      parts.set(stream, controllerName, status);
    } else if (o.kind === 'GatewayClass') {
      parts.set(stream, controllerName, status);
    } else if (isRouteKind(o.kind)) {
      const foreign: unknown[] = [];
      for (const p of status.parents ?? []) {
        if (p?.controllerName !== controllerName) { foreign.push(p); continue; }
        const gw = `${p.parentRef?.namespace ?? o.metadata.namespace}/${p.parentRef?.name}`;
        const w = writtenFor(gw);
        const was = w.parts.get(stream) ?? { parents: [] };
        const part = { parents: [...(was.parents ?? []), p] };
        w.parts.set(stream, part);
        const [ns, name] = gw.split('/');
        parts.set(stream, scoped(controllerName, gatewayStream(ns, name)), part);
      }
      if (foreign.length) parts.set(stream, INPUT_OWNER, { parents: foreign });
    } else {
      parts.set(stream, INPUT_OWNER, status);
    }
  };

  for (const [pi, phase] of phases.entries()) {
    const now: string = phase.step.now ?? options.now ?? '2026-11-29T17:00:00.000Z';
    if (phase.step.supportedFeatures) features = phase.step.supportedFeatures;
    const changes: { what: string; before?: K8sObject; after?: K8sObject }[] = [];
    for (const d of phase.step.delete ?? []) {
      const before = store.delete(d);
      if (!before) continue;
      changes.push({ what: `Deleted ${d.kind} ${id(before)}`, before: structuredClone(before) });
      parts.delete(streamOf(before), INPUT_OWNER);
    }
    for (const input of phase.docs) {
      const d = structuredClone(input);
      // the API puts a namespaced object without a namespace in "default"
      if (!CLUSTER_KINDS.has(d.kind)) d.metadata.namespace ??= 'default';
      const prev = store.get(d.kind, d.metadata.namespace, d.metadata.name);
      const before = prev && structuredClone(prev);
      const after = store.apply(d);
      if (d.status !== undefined) seedStatus(after);
      changes.push({ what: `${before ? 'Updated' : 'Created'} ${d.kind} ${id(after)}`, before, after });
    }

    // the objects as the log holds them (statuses are not in it) with the Services' stand-in
    // slices; what did not change since the last phase stays the same value, as in the worker's cache
    const held = new Map<string, K8sObject>();
    for (const o of store.list()) {
      held.set(streamOf(o), o);
      if (o.kind === 'Service') for (const slice of slicesOf(o)) held.set(streamOf(slice), slice);
    }
    for (const stream of [...fed.keys()]) if (!held.has(stream)) { source.delete(stream); fed.delete(stream); }
    for (const [stream, o] of held) {
      if (fed.get(stream) === o) continue;
      const { status: _s, ...obj } = o;
      source.put(obj as K8sObject);
      fed.set(stream, o);
    }
    const whole = worldOf(source.all());

    const doc: Record<string, unknown> = { phase: pi + 1 };
    if (pi === 0 && options.description) doc.description = options.description;
    if (phase.step.description) doc.description = phase.step.description;
    doc.now = now;
    if (pi > 0) doc.affected = changes.map((c) => ({ change: c.what, recompute: affectedGateways(whole, c.before, c.after).map((g) => `${g.namespace}/${g.name}`) }));

    const translateOpts = {
      controllerName, now,
      ...(features ? { supportedFeatures: features } : {}),
      ...(options.unavailablePorts ? { unavailablePorts: options.unavailablePorts } : {}),
      ...(options.addressPool ? { addressPool: options.addressPool } : {}),
    };
    for (const gc of store.list('GatewayClass')) {
      const stream = streamOf(gc);
      const st = gatewayClassStatus(source.get(stream) as never, translateOpts, parts.get(stream, controllerName) as never);
      if (st) parts.set(stream, controllerName, st);
      else parts.delete(stream, controllerName);
    }

    // every Gateway there is, and every one written for before (it may be gone now)
    const gateways = [...new Set([...store.list('Gateway').map(id), ...written.keys()])];
    const translations = new Map<string, GatewayTranslation>();
    const tables = new Map<string, Compiled>();
    const worlds = new Map<string, World>();
    for (const gw of gateways) {
      const [ns, name] = gw.split('/');
      const owner = gatewayStream(ns, name);
      const gateKey = scoped(controllerName, owner);
      const before = writtenFor(gw);
      const loaded = await loadGatewayWorld(source, ns, name, memo, before.gatewayStatus);
      const world = opts.reverse ? reversed(loaded.world) : loaded.world;
      const r = translateLoaded({ ...loaded, world }, { namespace: ns, name }, before, translateOpts, ctx);
      const { plan, after } = planRecompute(before, {
        gateKey, owner, scope: controllerName, routeOwner: gateKey, sourcePosition: source.position, now, durationMs: 0,
        deps: loaded.deps,
        statuses: r.translation && { gatewayStatus: r.translation.gatewayStatus, routeParents: r.translation.routeParents, policyAncestors: r.translation.policyAncestors, listenerSets: r.translation.listenerSetStatuses },
        snapshot: r.hash !== undefined ? { hash: r.hash, unattached: r.unattached, content: () => ({ tailZ: Buffer.from(r.tail()), wholeBytes: r.tail().length }) } : undefined,
      });
      parts.apply(plan);
      written.set(gw, after);
      if (r.translation) translations.set(gw, r.translation);
      // the table shown with its unattached routes in their place (they are stored beside the
      // snapshot, and the resolve endpoint passes them in: see answer)
      if (r.translation) tables.set(gw, { table: r.translation.table, unattached: JSON.parse(r.unattached) });
      worlds.set(gw, loaded.world);
    }

    const statusOf = (o: K8sObject) => parts.status(streamOf(o)) ?? null;
    doc.gatewayClasses = store.list('GatewayClass').map((o) => ({ name: o.metadata.name, status: statusOf(o) }));
    doc.gateways = store.list('Gateway').map((o) => ({ gateway: id(o), generation: o.metadata.generation, status: statusOf(o) }));
    const routes = store.list().filter((o) => isRouteKind(o.kind));
    doc.routes = routes.map((o) => ({ route: `${o.kind} ${id(o)}`, generation: o.metadata.generation, status: statusOf(o) }));
    const policies = store.list('BackendTLSPolicy');
    if (policies.length) doc.backendTLSPolicies = policies.map((o) => ({ policy: id(o), generation: o.metadata.generation, status: statusOf(o) }));
    const listenerSets = store.list('ListenerSet');
    if (listenerSets.length) doc.listenerSets = listenerSets.map((o) => ({ listenerSet: id(o), generation: o.metadata.generation, status: statusOf(o) }));
    doc.attachments = [...translations].map(([gw, t]) => ({
      gateway: gw,
      listeners: t.attachment.listeners.map((l) => ({
        name: l.listener.name, ...(l.listenerSet ? { listenerSet: `${l.listenerSet.namespace}/${l.listenerSet.name}` } : {}), valid: l.valid,
        routes: l.routes.map((r) => ({ route: `${r.kind} ${id(r.route as K8sObject)}`, parentRefIndex: r.parentRefIndex, hostnames: r.hostnames })),
      })),
      rejected: t.attachment.rejected.map((r) => ({ route: `${r.kind} ${id(r.route as K8sObject)}`, parentRefIndex: r.parentRefIndex, reason: r.reason })),
    }));
    // a route's backends as the world of a Gateway it names resolves them (the whole world for a route naming none)
    doc.backends = routes.map((r) => {
      const world = [...worlds.values()].find((w) => [...w.routes].some((x) => streamOf(x as K8sObject) === streamOf(r))) ?? whole;
      const route = ([...world.routes] as K8sObject[]).find((x) => streamOf(x) === streamOf(r)) ?? r;
      return {
        route: `${r.kind} ${id(r)}`,
        rules: routeRefs(viewOf(world), route as never).rules.map((rule) => [
          ...rule.backends.map((b) => backend(b)),
          ...rule.mirrors.map((m) => ({ mirror: m.path, ...backend(m.backend) })),
        ]),
      };
    });
    doc.tables = Object.fromEntries([...tables].map(([gw, t]) => [gw, { ...t.table, unattached: t.unattached }]));
    const requests = pi === 0 ? options.requests : phase.step.requests;
    if (requests?.length) doc.resolve = requests.map((req) => ({ request: req, response: answer(tables, req) }));
    tablesOut.push(render(doc.tables));
    compiled.push(new Map([...tables].map(([gw, t]) => [gw, t.table])));
    out.push(render(doc));
  }
  return { text: out.join('---\n'), tables: tablesOut, compiled };
}

interface Compiled { table: CompiledTable; unattached: CompiledTable['unattached'] }

/** What the resolve endpoint answers (src/adapters/http/delivery-router.ts). */
function answer(tables: Map<string, Compiled>, r: Request): unknown {
  const { gateway, context, ...request } = r;
  const t = gateway ? tables.get(gateway) : tables.values().next().value;
  if (!t) throw new Error(`no table for Gateway ${gateway ?? '(the first)'}`);
  return resolve(t.table, request as never, {
    unattached: t.unattached,
    ...(context?.random !== undefined ? { random: context.random } : {}),
    ...(context?.readable ? { canRead: (ns: string) => context.readable!.includes(ns) } : {}),
  });
}

/** The same world with every list in reverse order. */
function reversed(world: World): World {
  return Object.fromEntries(Object.entries(world).map(([k, v]) => [k, [...(v as unknown[])].reverse()])) as unknown as World;
}

// One line per condition, per supported kind, per list of names in the statuses: diffs stay
// readable. Tables and resolve answers are written out in block style.
const FLOW_ITEMS = new Set(['conditions', 'supportedKinds']);
const FLOW_LISTS = new Set(['supportedFeatures', 'hostnames', 'endpoints', 'recompute']);
const BLOCK_ONLY = new Set(['tables', 'resolve']);

const CONDITION_KEYS = ['type', 'status', 'reason', 'message', 'lastTransitionTime', 'observedGeneration'];

/** Conditions in one key order, whoever wrote them (input statuses pass through the defaulter). */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (!value || typeof value !== 'object') return value;
  const o = value as Record<string, unknown>;
  if (typeof o.type === 'string' && 'status' in o && 'lastTransitionTime' in o) {
    const keys = [...CONDITION_KEYS.filter((k) => k in o), ...Object.keys(o).filter((k) => !CONDITION_KEYS.includes(k))];
    return Object.fromEntries(keys.map((k) => [k, o[k]]));
  }
  return Object.fromEntries(Object.entries(o).map(([k, v]) => [k, canonical(v)]));
}

function render(value: unknown): string {
  const plain = JSON.parse(JSON.stringify(value ?? null)) as Record<string, unknown>;
  const doc = new Document(plain && typeof plain === 'object' && !Array.isArray(plain)
    ? Object.fromEntries(Object.entries(plain).map(([k, v]) => [k, BLOCK_ONLY.has(k) ? v : canonical(v)]))
    : plain, { aliasDuplicateObjects: false });
  visit(doc, {
    Pair(_, pair) {
      if (!isPair(pair) || !isScalar(pair.key)) return;
      const k = String(pair.key.value);
      if (BLOCK_ONLY.has(k)) return visit.SKIP;
      if (!isSeq(pair.value)) return;
      if (FLOW_ITEMS.has(k)) for (const item of pair.value.items) if (isMap(item)) item.flow = true;
      if (FLOW_LISTS.has(k)) pair.value.flow = true;
    },
  });
  return doc.toString({ lineWidth: 0, flowCollectionPadding: false });
}

function backend(b: any) {
  const o: Record<string, unknown> = {
    ref: `${b.kind}${b.group ? `.${b.group}` : ''} ${b.namespace}/${b.name}${b.port !== undefined ? `:${b.port}` : ''}`,
    weight: b.weight, valid: b.valid,
  };
  if (b.reason) o.reason = b.reason;
  if (b.appProtocol) o.appProtocol = b.appProtocol;
  o.endpoints = b.endpoints.map((e: any) => `${e.address}:${e.port}`);
  return o;
}
