// meta.k8s.io/v1 Table: what `kubectl get` asks for and prints as it comes (Name first, Age where
// upstream puts it, -o wide's extra columns marked with priority 1).
import type { K8sObject } from '../model/objects';
import type { TableColumn } from './types';
import type { Column, KubeResource } from './resources';
import { humanDuration } from './age';

export type IncludeObject = 'None' | 'Metadata' | 'Object';

const NAME: TableColumn = { name: 'Name', type: 'string', format: 'name', description: 'Name must be unique within a namespace.', priority: 0 };
const AGE: TableColumn = { name: 'Age', type: 'date', format: '', description: 'The time since the object was created', priority: 0 };

function definition(c: Column): TableColumn {
  return { name: c.name, type: c.type === 'date' ? 'date' : c.type, format: '', description: c.description, priority: c.wide ? 1 : 0 };
}

export function columnDefinitions(r: KubeResource): TableColumn[] {
  return [NAME, ...r.columns.map(definition), AGE, ...(r.trailing ?? []).map(definition)];
}

function rowObject(o: K8sObject, include: IncludeObject): unknown {
  if (include === 'None') return undefined;
  if (include === 'Object') return o;
  return { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: o.metadata };
}

export function tableRow(r: KubeResource, o: K8sObject, now: number, include: IncludeObject) {
  const created = Date.parse(o.metadata.creationTimestamp ?? '');
  const age = Number.isFinite(created) ? humanDuration(now - created) : '<unknown>';
  const cells = [o.metadata.name, ...r.columns.map((c) => c.cell(o)), age, ...(r.trailing ?? []).map((c) => c.cell(o))];
  const row: { cells: unknown[]; object?: unknown } = { cells };
  const object = rowObject(o, include);
  if (object !== undefined) row.object = object;
  return row;
}

export function table(r: KubeResource, items: K8sObject[], now: number, include: IncludeObject, metadata: { resourceVersion?: string; continue?: string }) {
  return {
    kind: 'Table', apiVersion: 'meta.k8s.io/v1', metadata,
    columnDefinitions: columnDefinitions(r),
    rows: items.map((o) => tableRow(r, o, now, include)),
  };
}

/** Whether an Accept header asks for a Table (kubectl get sends the Table first, JSON as fallback). */
export function wantsTable(accept: string | undefined): boolean {
  const first = (accept ?? '').split(',')[0].replace(/\s+/g, '').toLowerCase();
  return first.includes('as=table') && first.includes('g=meta.k8s.io');
}
