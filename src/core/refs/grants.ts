// ReferenceGrant: a reference into another namespace is allowed only when a grant in the target
// namespace admits it, by its "from" (group, kind, namespace of the referrer) and its "to" (group,
// kind and, when given, name of the target). References within one namespace need no grant.
import type { World } from '../model/world';
import { indexWorld } from './lookup';

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

export function referenceAllowed(world: World, from: ReferenceFrom, to: ReferenceTo): boolean {
  if (from.namespace === to.namespace) return true;
  return grantFor(world, from, to) !== undefined;
}

/** The name of the first ReferenceGrant (by name) that admits the reference, if any. */
export function grantFor(world: World, from: ReferenceFrom, to: ReferenceTo): string | undefined {
  const grants = indexWorld(world).grantsByNamespace.get(to.namespace) ?? []; // in name order
  for (const g of grants) {
    const fromOk = (g.spec?.from ?? []).some(
      (f: any) => (f?.group ?? '') === from.group && f?.kind === from.kind && f?.namespace === from.namespace,
    );
    if (!fromOk) continue;
    const toOk = (g.spec?.to ?? []).some(
      (t: any) => (t?.group ?? '') === to.group && t?.kind === to.kind && (t?.name === undefined || t?.name === '' || t.name === to.name),
    );
    if (toOk) return g.metadata.name;
  }
  return undefined;
}
