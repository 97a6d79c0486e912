// The diff step of a recompute: from what the last recompute wrote and what this one computed,
// the plan of what to write (only what changed), and what will then have been written. When the
// translation was merged from the one whose entries `before` holds (core/status/written-parts),
// only the entries it changed are compared, and `before`'s map of parts becomes `after`'s: the
// caller keeps `after` and lets `before` go, as it does anyway.
import { deepEqual } from '../core/objects/canonical';
import { noteWrittenParts, routeParentsChange, writtenFrom, type RouteEntriesList } from '../core/status/written-parts';
import type { RecomputePlan, SnapshotContent, Written } from '../adapters/store/recompute-write';
import { gatewayEvents, routeParentEvents, type EventDraft } from '../core/status/events';
import { parseStreamKey } from '../core/objects/keys';

export interface Computed {
  gateKey: string;
  owner: string;
  scope: string;
  /** this controller's key for the status parts of the routes (the gate key) */
  routeOwner: string;
  sourcePosition: number;
  now: string;
  durationMs: number;
  /** the dependency keys, sorted */
  deps: string[];
  /** absent when the Gateway is gone or not this controller's */
  statuses?: {
    gatewayStatus: unknown;
    routeParents: RouteEntriesList;
    /** BackendTLSPolicy status.ancestors entries, kept as parts of the same owner as the route entries */
    policyAncestors?: { kind: string; namespace: string; name: string; ancestors: unknown[] }[];
    /** written as status parts of this Gateway, as the route entries are (absent = none) */
    listenerSets?: { namespace: string; name: string; status: unknown }[];
  };
  /** absent with statuses; `content` makes what is stored (the table or its delta) when the hash is new */
  snapshot?: { hash: string; unattached: string; content: () => SnapshotContent };
  /** record the Kubernetes Events of the status transitions (core/status/events.ts); absent: none */
  events?: { instance: string; retentionSeconds: number };
}

// a route's entries object is answered again for every recompute that did not remake it
// (status/route.ts): its stream is made once
const STREAMS = new WeakMap<object, string>();
function streamOf(r: { kind: string; namespace: string; name: string }): string {
  let s = STREAMS.get(r);
  if (s === undefined) STREAMS.set(r, (s = `${r.kind}/${r.namespace}/${r.name}`));
  return s;
}

/** What changed between the dependencies written (their JSON) and these; null when the sets are the same. */
function depsChange(writtenJson: string, deps: readonly string[]): { add: string[]; remove: string[] } | null {
  const written = new Set(JSON.parse(writtenJson) as string[]);
  const now = new Set(deps);
  const add = [...now].filter((d) => !written.has(d));
  const remove = [...written].filter((d) => !now.has(d));
  return add.length || remove.length ? { add, remove } : null;
}

export function planRecompute(before: Written, c: Computed): { plan: RecomputePlan; after: Written } {
  const depsJson = JSON.stringify(c.deps);
  const after: Written = {
    gate: c.sourcePosition, gatewayStatus: c.statuses?.gatewayStatus as Record<string, unknown> | undefined, parts: new Map(),
    deps: depsJson, hash: c.snapshot?.hash ?? null, unattached: c.snapshot?.unattached,
  };
  const statusChanges: RecomputePlan['statusChanges'] = [];
  // decided from the entries that changed alone: what did not change records nothing
  const events: EventDraft[] = [];
  const routeChanged = (stream: string, was: { parents?: unknown[] } | undefined, parents: unknown[]) => {
    if (!c.events) return;
    const r = parseStreamKey(stream);
    for (const e of routeParentEvents(r, was?.parents, parents)) events.push(e);
  };
  // the streams that went, when the map of what was written is taken over (else found below)
  const gone: string[] = [];
  let taken = true;
  if (c.statuses) {
    if (!deepEqual(before.gatewayStatus ?? null, c.statuses.gatewayStatus)) {
      statusChanges.push({ stream: c.owner, owner: c.scope, status: c.statuses.gatewayStatus });
      if (c.events) events.push(...gatewayEvents(parseStreamKey(c.owner), before.gatewayStatus, c.statuses.gatewayStatus));
    }
    const routesOnly = !c.statuses.policyAncestors?.length && !c.statuses.listenerSets?.length;
    const change = routesOnly && before.gate !== null ? routeParentsChange(c.statuses.routeParents) : undefined;
    if (change && writtenFrom(before.parts) === change.previous) {
      // what was written holds the entries of the translation this one was merged from: only
      // the entries it changed are looked at, and the map is taken over (`before` is spent)
      after.parts = before.parts;
      for (const [stream, r] of change.entries) {
        const was = before.parts.get(stream);
        if (!r) {
          if (was) {
            after.parts.delete(stream);
            gone.push(stream);
          }
          continue;
        }
        if (was && was.parents === r.parents) continue;
        const status = { parents: r.parents };
        after.parts.set(stream, status);
        if (!was || !deepEqual(was, status)) {
          statusChanges.push({ stream, owner: c.routeOwner, status });
          routeChanged(stream, was, r.parents);
        }
      }
    } else {
      for (const r of c.statuses.routeParents) {
        const stream = streamOf(r);
        const was = before.parts.get(stream);
        // the core answers a route's entries it did not remake as the same array (status/route.ts)
        if (was && was.parents === r.parents) {
          after.parts.set(stream, was);
          continue;
        }
        const status = { parents: r.parents };
        after.parts.set(stream, status);
        if (!was || !deepEqual(was, status)) {
          statusChanges.push({ stream, owner: c.routeOwner, status });
          routeChanged(stream, was, r.parents);
        }
      }
      taken = false;
    }
    if (routesOnly) noteWrittenParts(after.parts, c.statuses.routeParents);
    for (const p of c.statuses.policyAncestors ?? []) {
      const stream = `${p.kind}/${p.namespace}/${p.name}`;
      const status = { ancestors: p.ancestors };
      after.parts.set(stream, status);
      const was = before.parts.get(stream);
      if (!was || !deepEqual(was, status)) statusChanges.push({ stream, owner: c.routeOwner, status });
    }
    for (const ls of c.statuses.listenerSets ?? []) {
      const stream = `ListenerSet/${ls.namespace}/${ls.name}`;
      after.parts.set(stream, ls.status as never);
      const was = before.parts.get(stream);
      if (!was || !deepEqual(was, ls.status)) {
        statusChanges.push({ stream, owner: c.routeOwner, status: ls.status });
        if (c.events) events.push(...gatewayEvents(ls, was, ls.status, 'ListenerSet'));
      }
    }
  }
  // a first write: whatever a concurrent first write left that this one does not hold goes
  const removeParts: RecomputePlan['removeParts'] = before.gate === null
    ? { keep: [...after.parts.keys()] }
    : c.statuses && taken ? { streams: gone } : { streams: [...before.parts.keys()].filter((s) => !after.parts.has(s)) };
  let snapshot: RecomputePlan['snapshot'] = { kind: 'none' };
  if (c.snapshot) {
    snapshot = before.hash !== c.snapshot.hash
      ? { kind: 'put', hash: c.snapshot.hash, content: { ...c.snapshot.content(), unattached: c.snapshot.unattached } }
      : { kind: 'put', hash: c.snapshot.hash, ...(before.unattached !== c.snapshot.unattached ? { unattached: c.snapshot.unattached } : {}) };
  } else if (before.hash !== null) snapshot = { kind: 'delete' };
  const plan: RecomputePlan = {
    gateKey: c.gateKey, owner: c.owner, scope: c.scope, sourcePosition: c.sourcePosition, baseGate: before.gate, now: c.now,
    durationMs: c.durationMs, statusChanges, removeParts, removeGatewayStatus: !c.statuses && before.gatewayStatus !== undefined,
    deps: before.deps === depsJson ? null : before.gate === null ? { all: c.deps } : depsChange(before.deps, c.deps), missedDeps: c.deps, snapshot,
    events: c.events && events.length ? { drafts: events, instance: c.events.instance, retentionSeconds: c.events.retentionSeconds } : null,
  };
  return { plan, after };
}
