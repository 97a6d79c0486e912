// Backends as the table carries them: every backendRef stays, with its weight; an unusable one is
// flagged (valid: false, reason) so that a proxy rejects its share instead of spreading it.
import type { Route } from '../model/objects';
import type { BackendResolution } from '../model/world';
import type { BackendRefInput } from '../refs/backends';
import { BackendReason } from '../status/reasons';
import { memoSlot, type TranslationContext } from '../translate/context';
import type { CompiledBackend, CompiledEndpoint, CompiledFilter } from './types';

export type BackendResolver = (route: Route, backendRef: BackendRefInput) => BackendResolution;

export function compileBackend(
  ctx: TranslationContext, res: BackendResolution, filters?: CompiledFilter[], problem?: { reason: string; message: string },
): CompiledBackend {
  const valid = res.valid && !problem;
  const out: CompiledBackend = {
    group: res.group ?? '',
    kind: res.kind ?? 'Service',
    namespace: res.namespace,
    name: res.name,
    ...(res.port !== undefined && res.port !== null ? { port: res.port } : {}),
    weight: Number.isFinite(res.weight) ? res.weight : 1,
    valid,
    ...(!valid ? { reason: problem?.reason ?? res.reason ?? BackendReason.Invalid } : {}),
    ...(!valid && (problem?.message ?? res.message) ? { message: (problem?.message ?? res.message) as string } : {}),
    ...(res.appProtocol ? { appProtocol: res.appProtocol } : {}),
    ...(valid && res.tls ? { tls: res.tls } : {}),
    endpoints: valid ? sortEndpoints(ctx, res.endpoints ?? []) : [],
    ...(filters && filters.length ? { filters } : {}),
  };
  return out;
}

// Backends of the same Service port share one resolved endpoint list (refs/endpoints.ts), so its
// sorted form is made once per list; the table may then hold one array in several places.
const SORTED = memoSlot('compile.sortedEndpoints', () => new WeakMap<object, CompiledEndpoint[]>());

function sortEndpoints(ctx: TranslationContext, endpoints: readonly { address: string; port: number }[]): CompiledEndpoint[] {
  const sorted = ctx.memo(SORTED);
  let out = sorted.get(endpoints);
  if (!out) sorted.set(endpoints, (out = Object.freeze(sortEndpointsOnce(endpoints).map((e) => Object.freeze(e))) as CompiledEndpoint[]));
  return out;
}

function sortEndpointsOnce(endpoints: readonly { address: string; port: number }[]): CompiledEndpoint[] {
  const seen = new Set<string>();
  const out: CompiledEndpoint[] = [];
  for (const e of endpoints) {
    const key = `${e.address}|${e.port}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ address: e.address, port: e.port });
  }
  return out.sort((a, b) => (a.address < b.address ? -1 : a.address > b.address ? 1 : a.port - b.port));
}
