// allowedRoutes.namespaces: which namespaces a listener admits routes from. Selector uses the
// Kubernetes LabelSelector (matchLabels AND matchExpressions with In, NotIn, Exists, DoesNotExist)
// over the Namespace's labels; an empty selector selects every namespace.
import type { Gateway, LabelSelector, Listener } from '../model/objects';
import { namespaceLabels, type WorldView } from '../refs/lookup';

export interface CompiledSelector {
  error?: string;
  matches(labels: Record<string, string>): boolean;
}

export function compileLabelSelector(selector: LabelSelector | null | undefined): CompiledSelector {
  if (selector === undefined || selector === null) return { error: 'no selector is given', matches: () => false };
  if (typeof selector !== 'object') return { error: 'the selector is not an object', matches: () => false };
  const checks: ((l: Record<string, string>) => boolean)[] = [];
  for (const [k, v] of Object.entries(selector.matchLabels ?? {})) {
    checks.push((l) => Object.prototype.hasOwnProperty.call(l, k) && l[k] === v);
  }
  for (const [i, e] of (selector.matchExpressions ?? []).entries()) {
    const k = e?.key;
    const values: string[] = Array.isArray(e?.values) ? e.values : [];
    const has = (l: Record<string, string>) => typeof k === 'string' && Object.prototype.hasOwnProperty.call(l, k);
    switch (e?.operator) {
      case 'In':
        if (values.length === 0) return invalid(`matchExpressions[${i}]: operator In needs values`);
        checks.push((l) => has(l) && values.includes(l[k]));
        break;
      case 'NotIn':
        if (values.length === 0) return invalid(`matchExpressions[${i}]: operator NotIn needs values`);
        checks.push((l) => !has(l) || !values.includes(l[k]));
        break;
      case 'Exists':
        if (values.length) return invalid(`matchExpressions[${i}]: operator Exists takes no values`);
        checks.push(has);
        break;
      case 'DoesNotExist':
        if (values.length) return invalid(`matchExpressions[${i}]: operator DoesNotExist takes no values`);
        checks.push((l) => !has(l));
        break;
      default:
        return invalid(`matchExpressions[${i}]: unknown operator "${e?.operator}"`);
    }
  }
  return { matches: (labels) => checks.every((c) => c(labels)) };
}

function invalid(error: string): CompiledSelector {
  return { error, matches: () => false };
}

export interface NamespacePolicy {
  from: string;
  selector?: CompiledSelector;
  /** why the policy admits nothing, when its selector is unusable */
  error?: string;
  admits(view: WorldView, namespace: string): boolean;
  describe(): string;
}

/** `owner`: the Gateway or ListenerSet declaring the listener (Same means its namespace). */
export function namespacePolicy(owner: Pick<Gateway, 'metadata'>, listener: Listener): NamespacePolicy {
  const ns = listener?.allowedRoutes?.namespaces;
  const from: string = ns?.from ?? 'Same';
  const gwNs = owner.metadata.namespace ?? '';
  switch (from) {
    case 'All':
      return { from, admits: () => true, describe: () => 'routes from all namespaces' };
    case 'Selector': {
      const selector = compileLabelSelector(ns?.selector);
      return {
        from, selector, error: selector.error,
        admits: (view, namespace) => selector.matches(namespaceLabels(view, namespace)),
        describe: () => 'routes from namespaces selected by its label selector',
      };
    }
    case 'None':
      return { from, admits: () => false, describe: () => 'no routes' };
    case 'Same':
    default:
      return { from: 'Same', admits: (_w, namespace) => namespace === gwNs, describe: () => `routes from namespace "${gwNs}" only` };
  }
}
