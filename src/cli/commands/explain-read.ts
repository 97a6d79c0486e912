// GET .../{name}/explain: why an object has (or has not) a status from the server's controller.
import { unwrap, type Api } from '../client';
import type { KindInfo } from '../../core/model/kinds';
import type { StatusExplanation } from '../../core/analyze/types';

export async function readExplanation(api: Api, info: KindInfo, namespace: string, name: string): Promise<StatusExplanation> {
  const plural = info.plural as never;
  const r = info.scope === 'Cluster'
    ? await api.GET('/api/v1/{plural}/{name}/explain', { params: { path: { plural, name } } })
    : await api.GET('/api/v1/namespaces/{namespace}/{plural}/{name}/explain', { params: { path: { namespace, plural, name } } });
  return unwrap(r) as StatusExplanation;
}
