// Which xDS stream serves which Gateway, and what each node acknowledged or refused per type: the
// one place proxy-status reads xDS nodes from (and where Linkerd's streams will register too).
import type { ResourceKind } from '../../core/xds/types';
import type { TypeStatus } from './ads-streams';

export interface XdsSession {
  gateway: string;
  nodeId: string;
  variant: 'sotw' | 'delta';
  peer: string;
  status: () => Partial<Record<ResourceKind, TypeStatus>>;
}

export class XdsSessions {
  private next = 0;
  private sessions = new Map<number, XdsSession>();

  add(s: XdsSession): number {
    const id = ++this.next;
    this.sessions.set(id, s);
    return id;
  }

  remove(id: number): void {
    this.sessions.delete(id);
  }

  /** The streams serving `gateway` ("ns/name") now. */
  of(gateway: string): XdsSession[] {
    return [...this.sessions.values()].filter((s) => s.gateway === gateway);
  }

  get size(): number {
    return this.sessions.size;
  }
}
