// A tiny in-memory store for the status tests (golden files and the conformance corpus): objects
// keyed by kind/namespace/name with Kubernetes write semantics (generation 1 on create, +1 when
// the spec changes; creationTimestamp set on create), a World built from it, and a reconcile that
// runs the pure core over every GatewayClass and Gateway and writes the statuses back onto the
// objects, so that the next reconcile sees them as `previous`.
import { worldOf } from '../../src/core/model/world';
import type { K8sObject } from '../../src/core/model/objects';
import type { World, TranslateOptions } from '../../src/core/model/world';
import { translateGateway, gatewayClassStatus, type GatewayTranslation } from '../../src/core/translate';
import type { AttachOptions } from '../../src/core/attach';
import { canonicalJson } from '../../src/core/objects/canonical';
import { applyDefaults } from '../../src/core/validate';
import { conformanceEndpointSlice } from '../support/conformance';

export const CONTROLLER = 'switchyard.dev/gateway-controller';

type Defaulter = (obj: any) => any;

/** Objects are stored defaulted, as the API stores them (src/core/validate's applyDefaults). */
export const defaults: Defaulter = (o) => applyDefaults(o);

const CLUSTER_KINDS = new Set(['GatewayClass', 'Namespace']);

export function objectKey(kind: string, namespace: string | undefined, name: string): string {
  return `${kind}/${CLUSTER_KINDS.has(kind) ? '' : namespace ?? ''}/${name}`;
}

function contentOf(o: K8sObject): unknown {
  const { apiVersion: _a, kind: _k, metadata: _m, status: _s, ...rest } = o;
  return rest;
}

export class Store {
  readonly objects = new Map<string, K8sObject>();
  private tick = 0;
  constructor(private readonly epoch = Date.parse('2026-01-01T00:00:00.000Z'), private readonly defaulter: Defaulter = defaults) {}

  /** creationTimestamps follow the order of writes, one second apart */
  nextTimestamp(): string {
    return new Date(this.epoch + 1000 * this.tick++).toISOString();
  }

  apply(input: K8sObject): K8sObject {
    const obj = this.defaulter(structuredClone(input)) as K8sObject;
    obj.metadata = { ...obj.metadata };
    if (CLUSTER_KINDS.has(obj.kind)) delete obj.metadata.namespace;
    if (obj.kind === 'Namespace')
      obj.metadata.labels = { ...(obj.metadata.labels ?? {}), 'kubernetes.io/metadata.name': obj.metadata.name };
    const k = objectKey(obj.kind, obj.metadata.namespace, obj.metadata.name);
    const cur = this.objects.get(k);
    if (cur) {
      const changed = canonicalJson(contentOf(cur)) !== canonicalJson(contentOf(obj));
      obj.metadata.generation = input.metadata.generation ?? (cur.metadata.generation ?? 1) + (changed ? 1 : 0);
      obj.metadata.creationTimestamp = cur.metadata.creationTimestamp;
      if (input.status === undefined && cur.status !== undefined) obj.status = cur.status;
    } else {
      obj.metadata.generation = input.metadata.generation ?? 1;
      obj.metadata.creationTimestamp = input.metadata.creationTimestamp ?? this.nextTimestamp();
    }
    this.objects.set(k, obj);
    return obj;
  }

  delete(ref: { kind: string; namespace?: string; name: string }): K8sObject | undefined {
    const k = objectKey(ref.kind, ref.namespace, ref.name);
    const cur = this.objects.get(k);
    this.objects.delete(k);
    return cur;
  }

  get(kind: string, namespace: string | undefined, name: string): K8sObject | undefined {
    return this.objects.get(objectKey(kind, namespace, name));
  }

  list(kind?: string): K8sObject[] {
    return [...this.objects.values()].filter((o) => kind === undefined || o.kind === kind);
  }

  /** The World of the stored objects; a Service annotated conformance/endpoints=N gets a slice of N ready endpoints. */
  world(): World {
    const all = this.list();
    return worldOf([...all, ...all.filter((o) => o.kind === 'Service').flatMap(syntheticSlices)]);
  }
}

function syntheticSlices(svc: K8sObject): any[] {
  const slice = conformanceEndpointSlice(svc);
  return slice ? [slice] : [];
}

export interface ReconcileResult {
  translations: Map<string, GatewayTranslation>;
}

/**
 * Runs the core over every GatewayClass and Gateway of the store and writes the statuses onto the
 * stored objects: GatewayClass and Gateway statuses as computed; each route's status.parents =
 * entries of other controllers kept, ours replaced by what the Gateways computed now.
 */
export function reconcile(store: Store, opts: TranslateOptions & AttachOptions): ReconcileResult {
  const world = store.world();
  const translations = new Map<string, GatewayTranslation>();
  const classStatuses = new Map<K8sObject, unknown>();
  for (const gc of world.gatewayClasses) {
    const st = gatewayClassStatus(gc, opts);
    if (st) classStatuses.set(gc as K8sObject, st);
  }
  for (const gw of world.gateways) {
    const t = translateGateway(world, { namespace: gw.metadata.namespace!, name: gw.metadata.name }, opts);
    if (t) translations.set(`${gw.metadata.namespace}/${gw.metadata.name}`, t);
  }
  for (const [gc, st] of classStatuses) gc.status = st;
  const ours = new Map<string, any[]>();
  for (const [gwKey, t] of translations) {
    const gw = world.gateways.find((g) => `${g.metadata.namespace}/${g.metadata.name}` === gwKey)!;
    (gw as K8sObject).status = t.gatewayStatus;
    for (const rp of t.routeParents) {
      const k = objectKey(rp.kind, rp.namespace, rp.name);
      (ours.get(k) ?? ours.set(k, []).get(k)!).push(...rp.parents);
    }
  }
  for (const r of world.routes as K8sObject[]) {
    const k = objectKey(r.kind, r.metadata.namespace, r.metadata.name);
    const foreign = (r.status?.parents ?? []).filter((p: any) => p?.controllerName !== opts.controllerName);
    const mine = ours.get(k) ?? [];
    if (!foreign.length && !mine.length && !r.status) continue;
    r.status = { parents: [...foreign, ...mine] };
  }
  return { translations };
}
