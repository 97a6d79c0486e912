// Gateway-level validation that comes before its listeners: is its class ours and accepted, does
// it ask for infrastructure parameters (none are supported), which addresses it is given (attach/addresses.ts).
import type { Gateway, GatewayClass } from '../model/objects';
import { GatewayReason } from '../status/reasons';
import { gatewayClassVerdict, isOurClass } from '../status/gatewayclass';
import type { WorldView } from '../refs/lookup';
import { assignAddresses, type AddressType, type GatewayAddress } from './addresses';

export interface GatewayVerdict {
  accepted: boolean;
  /** the Accepted reason when the Gateway itself is invalid (its listeners decide otherwise) */
  reason?: string;
  message?: string;
  /** why a requested address cannot be used (Programmed=False, AddressNotUsable) */
  addressNotUsable?: string;
  /** why an entry without a value got no address (Programmed=False, AddressNotAssigned) */
  addressProblem?: string;
  /** the addresses the Gateway is given, reported in status.addresses */
  addresses: GatewayAddress[];
}

export function gatewayClassOf(view: WorldView, gateway: Gateway): GatewayClass | undefined {
  return view.index.gatewayClasses.get(gateway.spec?.gatewayClassName ?? '');
}

/** Is this Gateway ours: its GatewayClass exists and names our controller. */
export function isOurGateway(view: WorldView, gateway: Gateway, controllerName: string): boolean {
  return isOurClass(gatewayClassOf(view, gateway), controllerName);
}

const ADDRESS_TYPES = new Set(['IPAddress', 'Hostname']);

export function gatewayVerdict(view: WorldView, gateway: Gateway, pool: readonly GatewayAddress[] = []): GatewayVerdict {
  const gc = gatewayClassOf(view, gateway);
  const out: GatewayVerdict = { accepted: true, addresses: [] };
  const requested: { index: number; type: AddressType; value?: string }[] = [];
  (gateway.spec?.addresses ?? []).forEach((a, i) => {
    const type = a?.type ?? 'IPAddress';
    if (!ADDRESS_TYPES.has(type)) {
      if (out.accepted) Object.assign(out, { accepted: false, reason: GatewayReason.UnsupportedAddress,
        message: `spec.addresses[${i}]: address type "${type}" is not supported; use IPAddress or Hostname` });
    } else requested.push({ index: i, type: type as AddressType, ...(a?.value ? { value: a.value } : {}) });
  });
  if (out.accepted && requested.length) {
    const given = assignAddresses(requested, pool);
    out.addresses = given.addresses;
    if (given.notUsable) out.addressNotUsable = given.notUsable;
    if (given.notAssigned) out.addressProblem = given.notAssigned;
  }
  const ref = gateway.spec?.infrastructure?.parametersRef;
  if (ref)
    return { ...out, accepted: false, reason: GatewayReason.InvalidParameters,
      message: `spec.infrastructure.parametersRef ${ref.kind ?? '?'} "${ref.name ?? ''}"${ref.group ? ` (group ${ref.group})` : ''} cannot be resolved: this controller takes no infrastructure parameters` };
  if (gc) {
    const v = gatewayClassVerdict(gc);
    if (!v.accepted)
      return { ...out, accepted: false, reason: GatewayReason.Invalid,
        message: `GatewayClass "${gc.metadata.name}" is not accepted (${v.reason}): ${v.message}` };
  }
  return out;
}
