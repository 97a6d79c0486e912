// Status is a projection written in parts: an object's own part (owned by the controller that
// computed it) and, for routes, one part per controller and Gateway that computed its
// status.parents entries (for BackendTLSPolicies, status.ancestors). Reading merges them: parents
// and ancestors are concatenated, other fields come from
// the first part (in owner order) that has them.
export interface StatusPartRow {
  owner: string;
  status: Record<string, unknown>;
}

export function mergeStatusParts(parts: StatusPartRow[] | null | undefined): Record<string, unknown> | undefined {
  if (!parts || parts.length === 0) return undefined;
  const sorted = [...parts].sort((a, b) => (a.owner < b.owner ? -1 : a.owner > b.owner ? 1 : 0));
  const out: Record<string, unknown> = {};
  for (const part of sorted) {
    for (const [key, value] of Object.entries(part.status ?? {})) {
      if ((key === 'parents' || key === 'ancestors') && Array.isArray(value)) {
        out[key] = [...((out[key] as unknown[]) ?? []), ...value];
      } else if (!(key in out)) {
        out[key] = value;
      }
    }
  }
  return out;
}
