// The Envoy data plane: what an Envoy node serving a Gateway is sent, from the Gateway's compiled
// table and the Secret data its snapshot carries. Pure: the adapter encodes and delivers it. Every
// cluster a listener or route names is in the result (the server sends clusters first).
import type { CompiledTable, SnapshotSecret } from '../../compile';
import type { Unsupported } from '../types';
import { ExtAuthzSet } from './auth-session';
import { ClusterSet, loadAssignment } from './clusters';
import { envoyListeners } from './listeners';
import { envoySecrets } from './secrets';
import type { EnvoyResources, Msg } from './types';

export type { EnvoyResources } from './types';

const byName = <V>(entries: [string, V][]): Map<string, V> => new Map(entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));

export function envoyResources(table: CompiledTable, secrets: readonly SnapshotSecret[] = []): EnvoyResources {
  const unsupported: Unsupported[] = [];
  const clusters = new ClusterSet(table);
  const { listeners, routes } = envoyListeners({ table, clusters, auth: new ExtAuthzSet(clusters), unsupported }, table.gateway);
  return {
    listener: byName(listeners.map((l): [string, Msg] => [l.name as string, l])),
    route: byName(routes.map((r): [string, Msg] => [r.name as string, r])),
    cluster: byName([...clusters.clusters]),
    endpoint: byName([...clusters.endpoints].map(([name, b]): [string, Msg] => [name, loadAssignment(name, b)])),
    secret: byName([...envoySecrets(table, secrets, unsupported)]),
    unsupported,
  };
}
