// The Kubernetes object paths: /api/v1/... for the core group, /apis/{group}/{version}/... for the
// others; [namespaces/{ns}/]{plural}[/{name}[/status]], cluster-scoped kinds without the namespace
// part. "namespaces" is both a kind and the prefix of namespaced paths, as in Kubernetes.
import { resourceAt, type KubeResource } from './resources';

export interface KubePath {
  resource: KubeResource;
  group: string;
  version: string;
  /** '' for a cluster-wide list of a namespaced kind, and for cluster-scoped kinds */
  namespace: string;
  name?: string;
  status?: boolean;
  /** the path with its variable parts named, for metrics and logs */
  template: string;
}

/** `rest`: the segments after the group/version. Null when they name no served resource. */
export function parseKubePath(group: string, version: string, rest: string[]): KubePath | null {
  const base = group ? `/apis/${group}/${version}` : '/api/v1';
  const [a, b, c, d, e] = rest;
  if (a === 'namespaces' && b !== undefined && c !== undefined) {
    const resource = resourceAt(group, version, c);
    if (resource && resource.info.scope === 'Namespaced' && rest.length <= 5 && (e === undefined || e === 'status')) {
      const t = `${base}/namespaces/:namespace/${c}`;
      if (d === undefined) return { resource, group, version, namespace: b, template: t };
      return { resource, group, version, namespace: b, name: d, status: e === 'status', template: `${t}/:name${e ? '/status' : ''}` };
    }
    // /api/v1/namespaces/{name}/status is the Namespace's own status
    if (!(group === '' && c === 'status' && rest.length === 3)) return null;
  }
  if (a === undefined) return null;
  const resource = resourceAt(group, version, a);
  if (!resource || rest.length > 3 || (c !== undefined && c !== 'status')) return null;
  const t = `${base}/${a}`;
  if (resource.info.scope === 'Namespaced') return rest.length === 1 ? { resource, group, version, namespace: '', template: t } : null;
  if (b === undefined) return { resource, group, version, namespace: '', template: t };
  return { resource, group, version, namespace: '', name: b, status: c === 'status', template: `${t}/:name${c ? '/status' : ''}` };
}
