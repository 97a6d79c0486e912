// The addresses a Gateway is given. The operator names the addresses Gateways may use (the address
// pool, SWITCHYARD_ADDRESS_POOL, handed to the core as plain data); a Gateway's spec.addresses entry
// with a value must be one of them (else Programmed False/AddressNotUsable, naming the address), and
// an entry without a value is given the first pool address of its type that the Gateway does not
// already hold (else Programmed False/AddressNotAssigned). The addresses given are status.addresses.
import { celIsIP } from '../validate/formats';

export type AddressType = 'IPAddress' | 'Hostname';

export interface GatewayAddress {
  type: AddressType;
  value: string;
}

export interface AddressAssignment {
  /** what the Gateway is given, in spec order */
  addresses: GatewayAddress[];
  /** why a requested value cannot be used (Programmed False, AddressNotUsable) */
  notUsable?: string;
  /** why an entry without a value got none (Programmed False, AddressNotAssigned) */
  notAssigned?: string;
}

/** The pool as the operator writes it: an entry is an IP address, or else a hostname. */
export function poolEntries(pool: readonly string[] | undefined): GatewayAddress[] {
  return (pool ?? []).map((v) => v.trim()).filter(Boolean)
    .map((value) => ({ type: celIsIP(value) ? 'IPAddress' : 'Hostname', value: celIsIP(value) ? value : value.toLowerCase() }));
}

const sameValue = (type: AddressType, a: string, b: string) => (type === 'Hostname' ? a.toLowerCase() === b.toLowerCase() : a === b);

/** `requested` holds only entries of supported types (the caller refuses the others first). */
export function assignAddresses(requested: readonly { index: number; type: AddressType; value?: string }[], pool: readonly GatewayAddress[]): AddressAssignment {
  const given = new Map<number, GatewayAddress>();
  const unusable: string[] = [];
  for (const r of requested) {
    if (!r.value) continue;
    const hit = pool.find((p) => p.type === r.type && sameValue(r.type, p.value, r.value!));
    if (hit) given.set(r.index, { type: r.type, value: r.value });
    else unusable.push(`spec.addresses[${r.index}] (${r.type} ${r.value})`);
  }
  const unassigned: string[] = [];
  for (const r of requested) {
    if (r.value) continue;
    const taken = [...given.values()];
    const free = pool.find((p) => p.type === r.type && !taken.some((t) => t.type === p.type && sameValue(p.type, t.value, p.value)));
    if (free) given.set(r.index, { ...free });
    else unassigned.push(`spec.addresses[${r.index}] (${r.type})`);
  }
  const out: AddressAssignment = { addresses: [...given].sort(([a], [b]) => a - b).map(([, a]) => a) };
  const poolWords = pool.length
    ? `the address pool (${pool.map((p) => p.value).join(', ')})`
    : 'the address pool, which is empty (the operator sets it with SWITCHYARD_ADDRESS_POOL)';
  if (unusable.length)
    out.notUsable = `${list(unusable)} ${unusable.length > 1 ? 'are' : 'is'} not in ${poolWords}: this control plane can give a Gateway only addresses from it; `
      + 'remove the address, or ask the operator to add it to the pool';
  if (unassigned.length)
    out.notAssigned = `${list(unassigned)} ${unassigned.length > 1 ? 'have' : 'has'} no value and ${poolWords} has no free address of that type for this Gateway`;
  return out;
}

function list(items: string[]): string {
  return items.length === 1 ? items[0] : `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}
