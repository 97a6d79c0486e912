// Gateway-level validation that comes before its listeners: is its class ours and accepted, does
// it ask for infrastructure parameters (none are supported), are its requested addresses usable.
import type { Gateway, GatewayClass } from '../model/objects';
import { GatewayReason } from '../status/reasons';
import { gatewayClassVerdict, isOurClass } from '../status/gatewayclass';
import type { WorldView } from '../refs/lookup';

export interface GatewayVerdict {
  accepted: boolean;
  /** the Accepted reason when the Gateway itself is invalid (its listeners decide otherwise) */
  reason?: string;
  message?: string;
  /** why no address can be reported (Programmed=False, AddressNotAssigned) */
  addressProblem?: string;
  /** statically requested addresses, reported in status.addresses */
  addresses: { type: string; value: string }[];
}

export function gatewayClassOf(view: WorldView, gateway: Gateway): GatewayClass | undefined {
  return view.index.gatewayClasses.get(gateway.spec?.gatewayClassName ?? '');
}

/** Is this Gateway ours: its GatewayClass exists and names our controller. */
export function isOurGateway(view: WorldView, gateway: Gateway, controllerName: string): boolean {
  return isOurClass(gatewayClassOf(view, gateway), controllerName);
}

const ADDRESS_TYPES = new Set(['IPAddress', 'Hostname']);

export function gatewayVerdict(view: WorldView, gateway: Gateway): GatewayVerdict {
  const gc = gatewayClassOf(view, gateway);
  const out: GatewayVerdict = { accepted: true, addresses: [] };
  const unassigned: number[] = [];
  (gateway.spec?.addresses ?? []).forEach((a, i) => {
    const type = a?.type ?? 'IPAddress';
    if (!ADDRESS_TYPES.has(type)) {
      if (out.accepted) Object.assign(out, { accepted: false, reason: GatewayReason.UnsupportedAddress,
        message: `spec.addresses[${i}]: address type "${type}" is not supported; use IPAddress or Hostname` });
    } else if (!a?.value) unassigned.push(i);
    else out.addresses.push({ type, value: a.value });
  });
  if (unassigned.length)
    out.addressProblem = `spec.addresses${unassigned.length > 1 ? ` entries ${unassigned.join(', ')} have` : `[${unassigned[0]}] has`} no value, and this control plane does not assign addresses`;
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
