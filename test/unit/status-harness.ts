// The conformance corpus's in-memory driver (test/unit/conformance-status.test.ts): a reconcile that
// runs the pure core over every GatewayClass and Gateway of a test/support/object-store Store and
// writes the statuses (ListenerSets' too) back onto the objects, so that the next reconcile sees them as `previous`.
import type { K8sObject } from '../../src/core/model/objects';
import type { TranslateOptions } from '../../src/core/model/world';
import { translate, gatewayClassStatus, type Translation } from '../../src/core/translate';
import type { AttachOptions } from '../../src/core/attach';
import { Store, objectKey } from '../support/object-store';

export { CONTROLLER, Store, objectKey, defaults } from '../support/object-store';

export interface ReconcileResult {
  translations: Map<string, Translation>;
}

/**
 * Runs the core over every GatewayClass and Gateway of the store and writes the statuses onto the
 * stored objects: GatewayClass and Gateway statuses as computed; each route's status.parents (each
 * BackendTLSPolicy's status.ancestors) = entries of other controllers kept, ours replaced by what
 * the Gateways computed now.
 */
export function reconcile(store: Store, opts: TranslateOptions & AttachOptions): ReconcileResult {
  const world = store.world();
  const translations = new Map<string, Translation>();
  const classStatuses = new Map<K8sObject, unknown>();
  for (const gc of world.gatewayClasses) {
    const st = gatewayClassStatus(gc, opts);
    if (st) classStatuses.set(gc as K8sObject, st);
  }
  for (const gw of world.gateways) {
    const t = translate(world, { namespace: gw.metadata.namespace!, name: gw.metadata.name }, opts);
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
    for (const e of t.listenerSetStatuses) {
      const ls = store.get('ListenerSet', e.namespace, e.name);
      if (ls) ls.status = e.status;
    }
  }
  const ancestors = new Map<string, any[]>();
  for (const t of translations.values()) for (const pa of t.policyAncestors) {
    const k = objectKey('BackendTLSPolicy', pa.namespace, pa.name);
    (ancestors.get(k) ?? ancestors.set(k, []).get(k)!).push(...pa.ancestors);
  }
  for (const p of (world.backendTLSPolicies ?? []) as K8sObject[]) {
    const k = objectKey('BackendTLSPolicy', p.metadata.namespace, p.metadata.name);
    const foreign = (p.status?.ancestors ?? []).filter((a: any) => a?.controllerName !== opts.controllerName);
    const mine = ancestors.get(k) ?? [];
    if (!foreign.length && !mine.length && !p.status) continue;
    p.status = { ancestors: [...foreign, ...mine] };
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
