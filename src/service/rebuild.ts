// Rebuilds every projection from the log: the objects by replaying it, then what the reconciler
// projects by recomputing every Gateway and GatewayClass, and the mesh's statuses and tables, from
// the rebuilt objects.
import type { Database } from '../adapters/store/database';
import { replayLogIntoObjects } from '../adapters/store/replay-objects';
import { dropReconciledProjections, listGatewaysAndClasses } from '../adapters/store/reconciled-reset';

export function rebuildProjections(db: Database): Promise<{ events: number; objects: number }> {
  return replayLogIntoObjects(db);
}

/**
 * Everything the reconciler projects (statuses, snapshots, dependencies), dropped and recomputed
 * from the rebuilt objects. Snapshot versions are not a projection: identical content keeps its
 * version and new content gets a higher one, so a proxy never sees a version go backwards.
 */
export async function rebuildReconciled(db: Database, controllerName: string, addressPool: readonly string[] = [], clusterDomain?: string): Promise<{ gateways: number; classes: number }> {
  await dropReconciledProjections(db);
  const { Reconciler } = await import('./reconcile');
  const reconciler = new Reconciler(db, { controllerName, addressPool });
  let gateways = 0;
  let classes = 0;
  for (const r of await listGatewaysAndClasses(db)) {
    if (r.kind === 'GatewayClass') {
      await reconciler.recomputeGatewayClass(r.name);
      classes++;
    } else {
      await reconciler.recomputeGateway(r.namespace, r.name);
      gateways++;
    }
  }
  // the mesh's projections: the Service parent entries of route statuses, and every namespace's table
  const { MeshReconciler } = await import('./mesh-reconcile');
  const { meshNamespaces } = await import('../adapters/store/mesh-tables');
  const mesh = new MeshReconciler(db, reconciler.cache, { controllerName, clusterDomain });
  await mesh.recomputeStatuses();
  for (const ns of await meshNamespaces(db, controllerName)) await mesh.recomputeTable(ns);
  return { gateways, classes };
}
