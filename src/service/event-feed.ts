// The event log as a caller may read it: pages of the events it may see, the others skipped.
import type { Database } from '../adapters/store/database';
import { lastVisiblePosition, readEvents, type StoredEvent } from '../adapters/store/eventlog';
import type { Principal } from './principal';
import { canReadEvent } from './event-view';
import { lastVisibleChange, statusChangesBetween } from '../adapters/store/kube-watch-reads';

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

/**
 * A page of the feed with the status changes among its events (`?status=true`): each object whose
 * status the reconciler changed after `after`, as it is now, at its status position (the position
 * space the events use, and the Kubernetes paths' resourceVersion), `type: StatusChanged`, `actor`
 * the controller. At most `limit` items; `next` is where the following page starts.
 */
export async function eventPageWithStatus(db: Database, p: Principal, after: number, limit: number, f: EventFilters, controllerName: string): Promise<{ items: StoredEvent[]; next: number }> {
  const page = await eventPage(db, p, after, limit, f);
  const changes = await statusChangesBetween(db, { after, upTo: page.next, ...f });
  if (changes.length === 0) return page;
  const items: StoredEvent[] = [...page.items];
  for (const c of changes) {
    const ev: StoredEvent = { position: c.position, type: 'StatusChanged', kind: c.kind, namespace: c.namespace, name: c.name, version: c.version, actor: controllerName, time: c.time, object: c.object };
    if (canReadEvent(p, ev)) items.push(ev);
  }
  items.sort((a, b) => a.position - b.position);
  if (items.length <= limit) return { items, next: page.next };
  items.length = limit;
  return { items, next: items[limit - 1].position };
}

/** The position of the newest event every reader can see (`status`: or status change). */
export function feedEnd(db: Database, status = false): Promise<number> {
  return status ? lastVisibleChange(db) : lastVisiblePosition(db.sql);
}
