// The mesh's recomputes (GAMMA): the table of one client namespace, and the Service parent entries
// of every route's status. Both read the whole mesh world (every Service, its EndpointSlices, and
// the HTTPRoutes and GRPCRoutes) from the worker's object cache at one log position, translate it
// in the pure core (src/core/mesh) and write only what changed.
import { createHash } from 'node:crypto';
import type { Database } from '../adapters/store/database';
import type { ObjectCache } from '../adapters/store/object-cache';
import { markRecomputed, readMeshParts, writeMeshParts, writeMeshTable } from '../adapters/store/mesh-tables';
import { scoped } from '../adapters/store/scope';
import { MESH_STATUS_JOB, meshJob } from '../adapters/queue/job-keys';
import type { World } from '../core/model/world';
import type { RouteParentStatus } from '../core/model/objects';
import { compileMesh, meshParentOutcomes, meshRouteParents, meshSnapshotBody, type MeshTable } from '../core/mesh';
import { viewOf } from '../core/refs/lookup';
import { TranslationContext } from '../core/translate';
import { deepEqual } from '../core/objects/canonical';
import { streamKey } from '../core/objects/keys';

export interface MeshOptions {
  controllerName: string;
  clusterDomain?: string;
  clock?: () => Date;
}

export interface MeshTableOutcome {
  namespace: string;
  version: number;
  changed: boolean;
  sourcePosition: number;
  table: MeshTable;
  body: string;
}

const MESH_ROUTE_KINDS = ['HTTPRoute', 'GRPCRoute', 'TLSRoute', 'TCPRoute', 'UDPRoute'];

export class MeshReconciler {
  private readonly clock: () => Date;
  private readonly ctx = new TranslationContext();

  constructor(private readonly db: Database, private readonly cache: ObjectCache, private readonly opts: MeshOptions) {
    this.clock = opts.clock ?? (() => new Date());
  }

  /** The mesh world as the cache holds it now, with the position it reflects. */
  private async world(atLeast?: number): Promise<{ world: World; position: number }> {
    if (atLeast === undefined || this.cache.position < atLeast) await this.cache.sync();
    const c = this.cache;
    const world: World = {
      gatewayClasses: [], gateways: [], referenceGrants: [], secrets: [], configMaps: [],
      routes: MESH_ROUTE_KINDS.flatMap((k) => c.ofKind(k)) as never[],
      namespaces: c.ofKind('Namespace') as never[],
      services: c.ofKind('Service') as never[],
      endpointSlices: c.ofKind('EndpointSlice') as never[],
    };
    return { world, position: c.position };
  }

  async recomputeTable(namespace: string, atLeast?: number): Promise<MeshTableOutcome> {
    const started = performance.now();
    const { world, position } = await this.world(atLeast);
    const table = compileMesh(world, namespace, { clusterDomain: this.opts.clusterDomain }, this.ctx);
    const json = JSON.stringify(table);
    const hash = createHash('sha256').update(json).digest('hex');
    const now = this.clock().toISOString();
    const { version, changed } = await writeMeshTable(this.db, {
      namespace, controller: this.opts.controllerName, hash, body: json, sourcePosition: position, now,
      gateKey: scoped(this.opts.controllerName, meshJob(namespace)), durationMs: performance.now() - started,
    });
    return { namespace, version, changed, sourcePosition: position, table, body: meshSnapshotBody(namespace, version, hash, json) };
  }

  /** Writes the Service parent entries of every route; answers the position read. */
  async recomputeStatuses(atLeast?: number): Promise<number> {
    const { world, position } = await this.world(atLeast);
    const owner = scoped(this.opts.controllerName, MESH_STATUS_JOB);
    const before = await readMeshParts(this.db, owner);
    const view = viewOf(world, this.ctx);
    const now = this.clock().toISOString();
    const entries = meshRouteParents(view, meshParentOutcomes(view), this.opts.controllerName, now,
      (route) => before.get(streamKey(route.kind, route.metadata.namespace ?? '', route.metadata.name))?.parents as RouteParentStatus[] | undefined);
    const put: { stream: string; status: unknown }[] = [];
    const keep = new Set<string>();
    for (const e of entries) {
      const stream = streamKey(e.kind, e.namespace, e.name);
      keep.add(stream);
      const status = { parents: e.parents };
      if (!deepEqual(before.get(stream) ?? null, status)) put.push({ stream, status });
    }
    const remove = [...before.keys()].filter((s) => !keep.has(s));
    if (put.length || remove.length) await writeMeshParts(this.db, owner, position, now, put, remove);
    else await markRecomputed(this.db, owner, position, now, 0);
    return position;
  }
}
