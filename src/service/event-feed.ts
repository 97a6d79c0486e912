// The event log as a caller may read it: pages of the events it may see, the others skipped.
import type { Database } from '../adapters/store/database';
import { lastVisiblePosition, readEvents, type StoredEvent } from '../adapters/store/eventlog';
import type { Principal } from './principal';
import { canReadEvent } from './event-view';

export const MAX_PAGE = 1000;

export interface EventFilters { kind?: string; namespace?: string }

/** Up to `limit` events after `after` that `p` may see; `next` is where the following page starts. */
export async function eventPage(db: Database, p: Principal, after: number, limit: number, f: EventFilters): Promise<{ items: StoredEvent[]; next: number }> {
  const items: StoredEvent[] = [];
  let cursor = after;
  for (;;) {
    const batch = Math.min(MAX_PAGE, Math.max(limit - items.length, 50));
    const { items: read, horizon } = await readEvents(db.sql, { after: cursor, limit: batch, ...f });
    for (const ev of read) {
      cursor = ev.position;
      if (canReadEvent(p, ev)) items.push(ev);
      if (items.length === limit) return { items, next: cursor };
    }
    if (read.length < batch) return { items, next: Math.max(cursor, horizon) };
  }
}

/** The position of the newest event every reader can see. */
export function feedEnd(db: Database): Promise<number> {
  return lastVisiblePosition(db.sql);
}
