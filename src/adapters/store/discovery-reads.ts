// What the Linkerd destination API reads of the store: the Service/EndpointSlice events after a
// position, one Service with its slices as the objects hold them now, and the
// Service a cluster IP belongs to.
import type { SqlRunner } from './database';
import { HORIZON, TX_SHIFT } from './eventlog';
import type { K8sObject } from '../../core/model/objects';
import type { ViewEvent } from '../../core/linkerd/service-view';
import { SERVICE_NAME_LABEL } from '../../core/refs/lookup';

type Runner = Pick<SqlRunner, '$queryRawUnsafe'>;

const KINDS = ['Service', 'EndpointSlice'];

export interface DiscoveryEvent extends ViewEvent { position: number }

/**
 * Up to `limit` Service and EndpointSlice events after `after`, every one committed so far, and
 * where the next read starts. Unlike the feed, this reader does not wait for the horizon (an older
 * transaction still running, such as a worker's, would hold a change back for as long as it runs):
 * it takes what has committed, and starts its next read no later than the horizon, so that an
 * older transaction's events, which land below what was read, are read then. Events read twice
 * change nothing the second time (the views keep each object's newest version).
 */
export async function readDiscoveryEvents(db: Runner, after: number, limit: number): Promise<{ items: DiscoveryEvent[]; next: number; more: boolean }> {
  const rows = await db.$queryRawUnsafe<any[]>(
    `WITH h AS (SELECT ${HORIZON} AS xmin)
     SELECT e.position, e.type, e.kind, e.namespace, e.name, e.version, e.object, h.xmin
     FROM h LEFT JOIN LATERAL (
       SELECT * FROM events WHERE position > $1 AND kind = ANY($3::text[])
       ORDER BY position LIMIT $2
     ) e ON true ORDER BY e.position`,
    after, limit, KINDS,
  );
  const horizon = Number(rows[0]?.xmin ?? 0) * TX_SHIFT - 1;
  const items: DiscoveryEvent[] = rows.filter((r) => r.position !== null).map((r) => ({
    position: Number(r.position), kind: r.kind, namespace: r.namespace, name: r.name, version: Number(r.version),
    deleted: r.type === 'Deleted', object: r.object as K8sObject,
  }));
  const more = items.length === limit;
  // a full page ends at its last event; everything below the horizon has been read otherwise
  const reached = more ? items[items.length - 1].position : Infinity;
  return { items, next: Math.max(after, Math.min(reached, horizon)), more };
}

/** The position below which every event is visible now: where a new follower starts. */
export async function discoveryHorizon(db: Runner): Promise<number> {
  const rows = await db.$queryRawUnsafe<{ xmin: string | number }[]>(`SELECT ${HORIZON} AS xmin`);
  return Number(rows[0]?.xmin ?? 0) * TX_SHIFT - 1;
}

/**
 * A Service and the slices labelled with it, as rows of the objects table (tombstones included,
 * for their versions), in the shape of events.
 */
export async function readServiceRows(db: Runner, namespace: string, name: string): Promise<ViewEvent[]> {
  const rows = await db.$queryRawUnsafe<any[]>(
    `SELECT kind, namespace, name, version, deleted, object FROM objects
     WHERE (kind = 'Service' AND namespace = $1 AND name = $2)
        OR (kind = 'EndpointSlice' AND namespace = $1 AND object->'metadata'->'labels'->>'${SERVICE_NAME_LABEL}' = $2)`,
    namespace, name,
  );
  return rows.map((r) => ({ kind: r.kind, namespace: r.namespace, name: r.name, version: Number(r.version), deleted: r.deleted, object: r.object as K8sObject }));
}

/** The Services (namespace, name) whose cluster IP is `ip`: one, unless the registry disagrees with itself. */
export async function servicesWithClusterIP(db: Runner, ip: string): Promise<{ namespace: string; name: string }[]> {
  return db.$queryRawUnsafe<{ namespace: string; name: string }[]>(
    `SELECT namespace, name FROM objects WHERE kind = 'Service' AND NOT deleted
       AND (object->'spec'->>'clusterIP' = $1 OR coalesce(object->'spec'->'clusterIPs', '[]'::jsonb) ? $1)
     ORDER BY namespace, name`,
    ip,
  );
}
