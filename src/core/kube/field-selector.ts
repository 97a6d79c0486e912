// fieldSelector as lists and watches take it: metadata.name and metadata.namespace only, with
// =, == and !=, comma-separated, all of which must hold (kube-apiserver refuses other fields).
import type { K8sObject } from '../model/objects';

export interface FieldRequirement {
  field: 'metadata.name' | 'metadata.namespace';
  op: 'eq' | 'neq';
  value: string;
}

export class FieldSelectorError extends Error {}

const FIELDS = new Set(['metadata.name', 'metadata.namespace']);

export function parseFieldSelector(input: string): FieldRequirement[] {
  const out: FieldRequirement[] = [];
  for (const raw of input.split(',')) {
    const part = raw.trim();
    if (!part) continue;
    const m = part.match(/^([^=!\s]+)\s*(==|=|!=)\s*(.*)$/);
    if (!m) throw new FieldSelectorError(`"${part.slice(0, 100)}" is not a field requirement (field=value or field!=value)`);
    if (!FIELDS.has(m[1])) throw new FieldSelectorError(`field label not supported: ${m[1].slice(0, 100)} (metadata.name and metadata.namespace are)`);
    out.push({ field: m[1] as FieldRequirement['field'], op: m[2] === '!=' ? 'neq' : 'eq', value: m[3].trim() });
  }
  return out;
}

export function matchesFields(o: K8sObject, reqs: readonly FieldRequirement[]): boolean {
  return reqs.every((r) => {
    const v = r.field === 'metadata.name' ? o.metadata.name : o.metadata.namespace ?? '';
    return r.op === 'eq' ? v === r.value : v !== r.value;
  });
}
