// Deltas between two versions of a namespace's mesh table (openapi/schemas/mesh.yaml
// MeshSnapshotDelta): the Services whose entries changed, whole, those that went, and the routes
// and rules whole. Pure: the API makes them, the proxy applies them and checks the hash.
import type { components } from '../../generated/api';
import type { MeshService, MeshTable } from './types';

export type MeshSnapshotDelta = components['schemas']['MeshSnapshotDelta'];

const keyOf = (s: { namespace: string; name: string }) => `${s.namespace}/${s.name}`;
const order = (a: MeshService, b: MeshService) => (a.namespace < b.namespace ? -1 : a.namespace > b.namespace ? 1 : a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

export function meshDelta(namespace: string, from: { version: number; table: MeshTable }, to: { version: number; hash: string; table: MeshTable }): MeshSnapshotDelta {
  const before = new Map(from.table.services.map((s) => [keyOf(s), JSON.stringify(s)]));
  const after = new Set(to.table.services.map(keyOf));
  return {
    namespace, fromVersion: from.version, version: to.version, hash: to.hash,
    services: {
      put: to.table.services.filter((s) => before.get(keyOf(s)) !== JSON.stringify(s)),
      remove: from.table.services.filter((s) => !after.has(keyOf(s))).map((s) => ({ namespace: s.namespace, name: s.name })),
    },
    routes: to.table.routes,
    rules: to.table.rules,
  };
}

/** The table a delta leads to from the table at its fromVersion (the caller checks the hash of its JSON). */
export function applyMeshDelta(table: MeshTable, d: MeshSnapshotDelta): MeshTable {
  const byKey = new Map(table.services.map((s) => [keyOf(s), s]));
  for (const r of d.services.remove) byKey.delete(keyOf(r));
  for (const s of d.services.put) byKey.set(keyOf(s), s);
  return {
    format: table.format, namespace: table.namespace, clusterDomain: table.clusterDomain,
    services: [...byKey.values()].sort(order), routes: d.routes, rules: d.rules,
  };
}
