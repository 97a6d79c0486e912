// Kind names as people type them: the kind, its plural, lower case, or a short name.
import { KINDS, type KindInfo } from '../core/model/kinds';
import { UsageError } from './args';

const SHORT: Record<string, string> = {
  gc: 'GatewayClass', gwc: 'GatewayClass', gtw: 'Gateway', gw: 'Gateway', hr: 'HTTPRoute', route: 'HTTPRoute', routes: 'HTTPRoute',
  gr: 'GRPCRoute', rg: 'ReferenceGrant', refgrant: 'ReferenceGrant', ns: 'Namespace', svc: 'Service',
  eps: 'EndpointSlice', es: 'EndpointSlice', cm: 'ConfigMap', lset: 'ListenerSet',
  btlspolicy: 'BackendTLSPolicy', btlspolicies: 'BackendTLSPolicy',
};

export function resolveKind(text: string): KindInfo {
  const t = text.toLowerCase().split('.')[0];
  const byShort = SHORT[t];
  const found = KINDS.find((k) => k.kind.toLowerCase() === t || k.plural === t || (byShort && k.kind === byShort));
  if (!found) throw new UsageError(`unknown kind "${text}"; one of: ${KINDS.map((k) => k.plural).join(', ')}`);
  return found;
}
