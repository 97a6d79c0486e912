// What a Linkerd proxy asks the destination API about: `GetDestination.path` (or an outbound
// TrafficSpec's authority) read as a Service port by name, `<service>.<namespace>.svc.<domain>:<port>`,
// or by address, `<cluster IP>:<port>` (IPv6 in brackets). Anything else is the caller's mistake,
// answered INVALID_ARGUMENT with the reason.
import { isIP } from './ip';

export type DestinationTarget =
  | { by: 'name'; namespace: string; service: string; port: number }
  | { by: 'address'; ip: string; port: number };

const LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

export class BadDestination extends Error {}

function portOf(text: string, whole: string): number {
  if (!/^\d{1,5}$/.test(text) || Number(text) < 1 || Number(text) > 65535) throw new BadDestination(`"${whole}": the port must be a number from 1 to 65535`);
  return Number(text);
}

export function parseDestination(path: string, clusterDomain: string): DestinationTarget {
  if (!path) throw new BadDestination('no destination: the path is empty (want "<service>.<namespace>.svc.' + clusterDomain + ':<port>" or "<cluster IP>:<port>")');
  const bracketed = /^\[([^\]]+)\]:([^:]*)$/.exec(path);
  if (bracketed) {
    if (isIP(bracketed[1]) !== 6) throw new BadDestination(`"${path}": not an IPv6 address in brackets`);
    return { by: 'address', ip: bracketed[1].toLowerCase(), port: portOf(bracketed[2], path) };
  }
  const colon = path.lastIndexOf(':');
  if (colon < 0) throw new BadDestination(`"${path}": the port is missing (want "<service>.<namespace>.svc.${clusterDomain}:<port>")`);
  const host = path.slice(0, colon).toLowerCase().replace(/\.$/, '');
  const port = portOf(path.slice(colon + 1), path);
  if (isIP(host) === 4) return { by: 'address', ip: host, port };
  const suffix = `.svc.${clusterDomain.toLowerCase()}`;
  if (!host.endsWith(suffix)) throw new BadDestination(`"${path}": not a Service of this cluster (want "<service>.<namespace>${suffix}:<port>" or "<cluster IP>:<port>")`);
  const labels = host.slice(0, -suffix.length).split('.');
  if (labels.length !== 2 || !labels.every((l) => LABEL.test(l))) throw new BadDestination(`"${path}": want exactly "<service>.<namespace>${suffix}:<port>"`);
  return { by: 'name', service: labels[0], namespace: labels[1], port };
}

/** The name a Service port is asked for by: what dst_overrides and backends carry. */
export function authorityOf(namespace: string, service: string, port: number, clusterDomain: string): string {
  return `${service}.${namespace}.svc.${clusterDomain}:${port}`;
}
