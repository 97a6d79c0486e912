// ReferenceGrant: a reference into another namespace is allowed only when a grant in the target
// namespace admits it, by its "from" (group, kind, namespace of the referrer) and its "to" (group,
// kind and, when given, name of the target). References within one namespace need no grant.
import type { ReferenceGrantFrom, ReferenceGrantTo } from '../model/objects';
import type { WorldView } from './lookup';

export interface ReferenceFrom {
  group: string;
  kind: string;
  namespace: string;
}

export interface ReferenceTo {
  group: string;
  kind: string;
  namespace: string;
  name: string;
}

export function referenceAllowed(view: WorldView, from: ReferenceFrom, to: ReferenceTo): boolean {
  if (from.namespace === to.namespace) return true;
  return grantFor(view, from, to) !== undefined;
}

/** Does one `from` entry of a grant admit referrers of this group, kind and namespace? */
export function grantFromAdmits(entry: Partial<ReferenceGrantFrom> | undefined, from: ReferenceFrom): boolean {
  return (entry?.group ?? '') === from.group && entry?.kind === from.kind && entry?.namespace === from.namespace;
}

/** Does one `to` entry of a grant admit this target (an entry without name admits every name)? */
function grantToAdmits(entry: Partial<ReferenceGrantTo> | undefined, to: ReferenceTo): boolean {
  return (entry?.group ?? '') === to.group && entry?.kind === to.kind
    && (entry?.name === undefined || entry.name === '' || entry.name === to.name);
}

/** The name of the first ReferenceGrant (by name) that admits the reference, if any. */
function grantFor(view: WorldView, from: ReferenceFrom, to: ReferenceTo): string | undefined {
  const grants = view.index.grantsByNamespace.get(to.namespace) ?? []; // in name order
  for (const g of grants) {
    if ((g.spec?.from ?? []).some((f) => grantFromAdmits(f, from)) && (g.spec?.to ?? []).some((t) => grantToAdmits(t, to)))
      return g.metadata.name;
  }
  return undefined;
}
