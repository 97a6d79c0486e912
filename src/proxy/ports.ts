// The ports a proxy listens on follow its tables: a swap binds the ports the new table needs before
// it takes effect (a port that cannot be bound rejects the snapshot, and the last good table stays),
// and releases the ones it no longer needs after. A released port stops accepting; the requests and
// connections it carries finish on their own.
import type { Server } from 'node:http';
import type { CompiledTable } from '../core/compile/types';

/** The listener protocols this proxy serves; the others are reported, not opened. */
export const SERVED_PROTOCOLS = new Set(['HTTP']);

export interface Bound {
  gateway: string;
  server: Server;
}

export class Ports {
  private readonly bound = new Map<number, Bound>();

  constructor(
    private readonly host: string,
    private readonly offset: number,
    private readonly serverFor: (gateway: string, port: number) => Server,
  ) {}

  /** The listener ports of a table that carry traffic and that this proxy serves, and the ones it does not. */
  static wanted(table: CompiledTable): { ports: number[]; unserved: string[] } {
    const ports = new Set<number>();
    const unserved: string[] = [];
    for (const l of table.listeners) {
      if (!l.valid) continue;
      if (SERVED_PROTOCOLS.has(l.protocol)) ports.add(l.port);
      else unserved.push(`${l.name} (${l.protocol} ${l.port})`);
    }
    return { ports: [...ports].sort((a, b) => a - b), unserved };
  }

  /**
   * Binds what `ports` adds for `gateway`; resolves with the step that releases what it drops, or
   * rejects (having released what it bound) when a port is taken.
   */
  async prepare(gateway: string, ports: number[]): Promise<() => void> {
    const added: number[] = [];
    try {
      for (const port of ports) {
        const b = this.bound.get(port);
        if (b && b.gateway !== gateway) throw new Error(`port ${port} is already served for Gateway ${b.gateway}`);
        if (b) continue;
        const server = this.serverFor(gateway, port);
        await listen(server, port + this.offset, this.host);
        this.bound.set(port, { gateway, server });
        added.push(port);
      }
    } catch (e) {
      for (const port of added) release(this.bound.get(port)!.server);
      for (const port of added) this.bound.delete(port);
      throw e;
    }
    const keep = new Set(ports);
    return () => {
      for (const [port, b] of this.bound) {
        if (b.gateway === gateway && !keep.has(port)) {
          release(b.server);
          this.bound.delete(port);
        }
      }
    };
  }

  /** The ports bound now, as "listener port -> local port". */
  list(): { gateway: string; port: number; local: number }[] {
    return [...this.bound].map(([port, b]) => ({ gateway: b.gateway, port, local: port + this.offset }));
  }

  servers(): Server[] {
    return [...this.bound.values()].map((b) => b.server);
  }
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (e: NodeJS.ErrnoException) => {
      server.off('listening', onListening);
      reject(new Error(`cannot listen on ${host}:${port}: ${e.code ?? e.message}`));
    };
    const onListening = () => {
      server.off('error', onError);
      resolve();
    };
    server.once('error', onError);
    server.once('listening', onListening);
    server.listen(port, host);
  });
}

function release(server: Server): void {
  server.close();
  server.closeIdleConnections();
}
