// What the analysis of an apply reads of the store (core/analyze/scope.ts says what): the live
// objects in some namespaces and the cluster-scoped ones, without status; and some Secrets' data.
import type { SqlRunner } from './database';
import type { K8sObject } from '../../core/model/objects';
import { inReadingOrder } from '../../core/objects/order';
import { streamKey } from '../../core/objects/keys';
import { getSecretsData } from './objects';

type Runner = Pick<SqlRunner, '$queryRawUnsafe'>;

// EndpointSlices decide whether a backend has endpoints, which the analysis does not report on
const KINDS = ['GatewayClass', 'Gateway', 'HTTPRoute', 'GRPCRoute', 'TLSRoute', 'TCPRoute', 'UDPRoute', 'ReferenceGrant',
  'Namespace', 'Service', 'Secret', 'ConfigMap', 'ListenerSet', 'BackendTLSPolicy'];

/** Those objects, or undefined when there are more than `limit` of them. */
export async function readAnalysisObjects(db: Runner, namespaces: string[], secrets: { namespace: string; name: string }[], limit: number): Promise<K8sObject[] | undefined> {
  const rows = await db.$queryRawUnsafe<{ object: K8sObject }[]>(
    `SELECT object FROM objects WHERE NOT deleted AND kind = ANY($1::text[]) AND (namespace = '' OR namespace = ANY($2::text[])) LIMIT $3`,
    KINDS, namespaces, limit + 1,
  );
  if (rows.length > limit) return undefined;
  const objects = rows.map((r) => r.object);
  if (secrets.length === 0) return objects.map(inReadingOrder);
  const data = await getSecretsData(db, secrets.map((s) => streamKey('Secret', s.namespace, s.name)));
  return objects.map((o) => {
    const d = o.kind === 'Secret' ? data.get(streamKey('Secret', o.metadata.namespace ?? '', o.metadata.name)) : undefined;
    if (!d) return inReadingOrder(o);
    const { dataDigest: _digest, ...rest } = o;
    return inReadingOrder({ ...rest, data: d.data });
  });
}
