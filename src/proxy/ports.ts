// The ports a proxy listens on follow its tables: a swap binds the ports the new table needs before
// it takes effect (a port that cannot be bound rejects the snapshot, and the last good table stays),
// and releases the ones it no longer needs after. A released port stops accepting; the requests and
// connections it carries finish on their own.
import type { CompiledTable } from '../core/compile/types';
import type { PortKind, PortServer } from './listener-servers';

const KIND_OF: Record<string, PortKind> = { HTTP: 'http', HTTPS: 'https' };

export interface Bound {
  gateway: string;
  server: PortServer;
}

export class Ports {
  private readonly bound = new Map<number, Bound>();

  constructor(
    private readonly host: string,
    private readonly offset: number,
    private readonly serverFor: (gateway: string, port: number, kind: PortKind) => PortServer,
  ) {}

  /** The listener ports of a table that carry traffic and that this proxy serves, and the listeners it does not. */
  static wanted(table: CompiledTable): { ports: Map<number, PortKind>; unserved: string[] } {
    const ports = new Map<number, PortKind>();
    const unserved: string[] = [];
    for (const l of table.listeners) {
      if (!l.valid) continue;
      const kind = KIND_OF[l.protocol];
      if (kind && (!ports.has(l.port) || ports.get(l.port) === kind)) ports.set(l.port, kind);
      else unserved.push(`${l.name} (${l.protocol} ${l.port})`);
    }
    return { ports, unserved };
  }

  /**
   * Binds what `ports` adds for `gateway`; resolves with the step that releases what it drops, or
   * rejects (having released what it bound) when a port is taken. A port whose kind changes is
   * closed and bound again.
   */
  async prepare(gateway: string, ports: Map<number, PortKind>): Promise<() => void> {
    const added: number[] = [];
    try {
      for (const [port, kind] of [...ports].sort((a, b) => a[0] - b[0])) {
        const b = this.bound.get(port);
        if (b && b.gateway !== gateway) throw new Error(`port ${port} is already served for Gateway ${b.gateway}`);
        if (b && b.server.kind === kind) continue;
        if (b) {
          release(b.server);
          this.bound.delete(port);
        }
        const server = this.serverFor(gateway, port, kind);
        await server.listen(port + this.offset, this.host);
        this.bound.set(port, { gateway, server });
        added.push(port);
      }
    } catch (e) {
      for (const port of added) release(this.bound.get(port)!.server);
      for (const port of added) this.bound.delete(port);
      throw e;
    }
    return () => {
      for (const [port, b] of this.bound) {
        if (b.gateway === gateway && !ports.has(port)) {
          release(b.server);
          this.bound.delete(port);
        }
      }
    };
  }

  /** The ports bound now, as "listener port -> local port". */
  list(): { gateway: string; port: number; local: number; kind: PortKind }[] {
    return [...this.bound].map(([port, b]) => ({ gateway: b.gateway, port, local: port + this.offset, kind: b.server.kind }));
  }

  servers(): PortServer[] {
    return [...this.bound.values()].map((b) => b.server);
  }
}

function release(server: PortServer): void {
  server.close();
  server.closeIdleConnections();
}
