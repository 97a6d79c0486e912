// The ports a proxy listens on follow its tables: a swap binds the ports the new table needs before
// it takes effect (a port that cannot be bound rejects the snapshot, and the last good table stays),
// and releases the ones it no longer needs after. A released port stops accepting; the requests and
// connections it carries finish on their own. TCP and UDP ports are apart: a Gateway may listen on
// TCP 53 and UDP 53 at once.
import type { CompiledTable } from '../core/compile/types';
import type { PortKind, PortServer } from './listener-servers';

/**
 * What serves each listener protocol. Every port with a TLS-family listener (HTTPS, TLS) is read by
 * the TLS front, which dispatches each connection by its SNI: to the HTTPS server, or to a TLSRoute
 * (passthrough or terminated), so that listeners of both kinds share a port and appear or go
 * without the port being bound again.
 */
const KIND_OF: Record<string, PortKind> = { HTTP: 'http', HTTPS: 'tls', TLS: 'tls', TCP: 'tcp', UDP: 'udp' };

/** A port that could not be bound: worth trying again later, unlike a snapshot that cannot be read. */
export class PortBindError extends Error {}

export interface WantedPort {
  port: number;
  kind: PortKind;
}

export interface Bound {
  gateway: string;
  port: number;
  server: PortServer;
}

/** "80" for a TCP port (HTTP, HTTPS, TLS, TCP listeners), "53/udp" for a UDP one. */
export function portKey(port: number, kind: PortKind): string {
  return kind === 'udp' ? `${port}/udp` : String(port);
}

export class Ports {
  private readonly bound = new Map<string, Bound>();

  constructor(
    private readonly host: string,
    private readonly offset: number,
    private readonly serverFor: (gateway: string, port: number, kind: PortKind) => PortServer,
  ) {}

  /** The listener ports of a table that carry traffic and that this proxy serves, and the listeners it does not. */
  static wanted(table: CompiledTable): { ports: Map<string, WantedPort>; unserved: string[] } {
    const ports = new Map<string, WantedPort>();
    const unserved: string[] = [];
    for (const l of table.listeners) {
      if (!l.valid) continue;
      const kind = KIND_OF[l.protocol];
      const key = kind && portKey(l.port, kind);
      if (kind && (!ports.has(key) || ports.get(key)!.kind === kind)) ports.set(key, { port: l.port, kind });
      else unserved.push(`${l.name} (${l.protocol} ${l.port})`);
    }
    return { ports, unserved };
  }

  /**
   * Binds what `ports` adds for `gateway`; resolves with the step that releases what it drops, or
   * rejects (having released what it bound) when a port is taken. A port whose kind changes is
   * closed and bound again.
   */
  async prepare(gateway: string, ports: Map<string, WantedPort>): Promise<() => void> {
    const added: string[] = [];
    try {
      for (const [key, { port, kind }] of [...ports].sort((a, b) => a[1].port - b[1].port)) {
        const b = this.bound.get(key);
        if (b && b.gateway !== gateway) throw new PortBindError(`port ${key} is already served for Gateway ${b.gateway}`);
        if (b && b.server.kind === kind) continue;
        if (b) {
          release(b.server);
          this.bound.delete(key);
        }
        const server = this.serverFor(gateway, port, kind);
        try {
          await server.listen(port + this.offset, this.host);
        } catch (e) {
          throw new PortBindError((e as Error).message);
        }
        this.bound.set(key, { gateway, port, server });
        added.push(key);
      }
    } catch (e) {
      for (const key of added) release(this.bound.get(key)!.server);
      for (const key of added) this.bound.delete(key);
      throw e;
    }
    return () => {
      for (const [key, b] of this.bound) {
        if (b.gateway === gateway && !ports.has(key)) {
          release(b.server);
          this.bound.delete(key);
        }
      }
    };
  }

  /** The ports bound now, as "listener port -> local port". */
  list(): { gateway: string; port: number; local: number; kind: PortKind }[] {
    return [...this.bound.values()].map((b) => ({ gateway: b.gateway, port: b.port, local: b.port + this.offset, kind: b.server.kind }));
  }

  servers(): PortServer[] {
    return [...this.bound.values()].map((b) => b.server);
  }
}

function release(server: PortServer): void {
  server.close();
  server.closeIdleConnections();
}
