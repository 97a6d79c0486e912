// The tables this proxy serves, one per Gateway. A swap replaces the Gateway's entry whole: a
// request reads the entry once when it arrives and routes on that, so it sees the old table or the
// new one, never a mix.
import type { CompiledTable, Snapshot } from '../core/compile/types';

export interface ServedTable {
  gateway: string; // "ns/name"
  version: number;
  hash: string;
  table: CompiledTable;
  secrets: NonNullable<Snapshot['secrets']>;
  appliedAt: number;
}

export interface GatewayState {
  gateway: string;
  served?: ServedTable;
  /** the last snapshot that could not be applied, and why */
  rejected?: { version: number; hash: string; error: string; at: number };
}

export class Tables {
  private readonly states = new Map<string, GatewayState>();

  constructor(gateways: readonly string[]) {
    for (const g of gateways) this.states.set(g, { gateway: g });
  }

  get(gateway: string): GatewayState | undefined {
    return this.states.get(gateway);
  }

  all(): GatewayState[] {
    return [...this.states.values()];
  }

  swap(gateway: string, served: ServedTable): void {
    const s = this.states.get(gateway)!;
    this.states.set(gateway, { gateway, served, ...(s.rejected && s.rejected.version > served.version ? { rejected: s.rejected } : {}) });
  }

  reject(gateway: string, snap: Pick<Snapshot, 'version' | 'hash'>, error: string): void {
    const s = this.states.get(gateway)!;
    this.states.set(gateway, { ...s, rejected: { version: snap.version, hash: snap.hash, error, at: Date.now() } });
  }

  /** Every Gateway has a table. */
  ready(): boolean {
    return this.all().every((s) => s.served !== undefined);
  }
}
