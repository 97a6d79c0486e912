// Label selectors over objects in memory (the store evaluates them in SQL for lists; a watch
// filters each event itself).
import type { Requirement } from '../objects/label-selector';

export function matchesLabels(labels: Record<string, string> | undefined, reqs: readonly Requirement[]): boolean {
  const l = labels ?? {};
  return reqs.every((r) => {
    const has = Object.hasOwn(l, r.key);
    switch (r.op) {
      case 'eq': return has && l[r.key] === r.value;
      case 'neq': return !has || l[r.key] !== r.value;
      case 'exists': return has;
      case 'notexists': return !has;
      case 'in': return has && r.values.includes(l[r.key]);
      case 'notin': return !has || !r.values.includes(l[r.key]);
    }
  });
}
