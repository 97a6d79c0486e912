// Which ListenerSets join a Gateway: those whose parentRef names it, in the spec's precedence order
// (oldest first, then namespace/name), each allowed or not by the Gateway's spec.allowedListeners
// (from None by default, so that no ListenerSet joins a Gateway that did not ask for them).
import type { Gateway, ListenerSet } from '../model/objects';
import { key, namespaceLabels, refName, type WorldView } from '../refs/lookup';
import { ageAndName, byAgeThenName } from '../precedence/ladder';
import { compileLabelSelector } from './namespaces';

export interface ListenerSetVerdict {
  listenerSet: ListenerSet;
  namespace: string;
  name: string;
  /** the Gateway's allowedListeners admits it */
  allowed: boolean;
  /** why it is not allowed */
  message?: string;
}

/** The ListenerSets naming the Gateway, in precedence order, with the Gateway's verdict on each. */
export function listenerSetsOf(view: WorldView, gateway: Gateway): ListenerSetVerdict[] {
  const gwNs = gateway.metadata.namespace ?? '';
  const sets = [...(view.index.listenerSetsByGateway.get(key(gwNs, gateway.metadata.name)) ?? [])];
  const keyed = sets.map((ls) => ({ ls, k: ageAndName(ls.metadata) }));
  keyed.sort((a, b) => byAgeThenName(a.k, b.k));
  const policy = allowedListeners(gateway);
  return keyed.map(({ ls }) => {
    const namespace = ls.metadata.namespace ?? '';
    const problem = policy(view, namespace);
    return { listenerSet: ls, namespace, name: ls.metadata.name, allowed: problem === undefined, ...(problem ? { message: problem } : {}) };
  });
}

/** spec.allowedListeners.namespaces as a check: undefined when a namespace is admitted, else why not. */
function allowedListeners(gateway: Gateway): (view: WorldView, namespace: string) => string | undefined {
  const ns = gateway.spec?.allowedListeners?.namespaces;
  const from: string = ns?.from ?? 'None';
  const gwNs = gateway.metadata.namespace ?? '';
  const gw = `Gateway "${refName(gwNs, gateway.metadata.name)}"`;
  switch (from) {
    case 'All':
      return () => undefined;
    case 'Same':
      return (_v, namespace) => (namespace === gwNs ? undefined : `${gw} allows ListenerSets from its own namespace only (allowedListeners.namespaces.from: Same)`);
    case 'Selector': {
      const selector = compileLabelSelector(ns?.selector);
      if (selector.error) return () => `${gw} allowedListeners.namespaces.selector is unusable: ${selector.error}`;
      return (view, namespace) => (selector.matches(namespaceLabels(view, namespace)) ? undefined
        : `${gw} allows ListenerSets from namespaces its allowedListeners.namespaces.selector selects, and "${namespace}" is not one of them`);
    }
    case 'None':
    default:
      return () => `${gw} allows no ListenerSets (allowedListeners.namespaces.from: ${from === 'None' && !ns ? 'None, the default' : from})`;
  }
}
