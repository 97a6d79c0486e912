// SelfSubjectAccessReview (`kubectl auth can-i`): the same role table every path enforces, asked
// about a verb on a resource in a namespace.
import type { Principal } from './principal';
import { canRead, canWrite, listScope } from './access';
import { KUBE_RESOURCES } from '../core/kube/resources';

export interface ResourceAttributes {
  namespace?: string;
  verb?: string;
  group?: string;
  resource?: string;
  subresource?: string;
  name?: string;
}

const READS = new Set(['get', 'list', 'watch']);
const WRITES = new Set(['create', 'update', 'patch', 'delete', 'deletecollection']);

export function reviewAccess(p: Principal, a: ResourceAttributes): { allowed: boolean; reason: string } {
  const verb = a.verb ?? '';
  if (p.role === 'admin') return { allowed: true, reason: `token "${p.name}" is an admin` };
  const r = KUBE_RESOURCES.find((x) => x.info.plural === a.resource && (a.group === undefined || a.group === '*' || x.group === a.group));
  if (!r) return { allowed: false, reason: `no rule of role ${p.role} names the resource "${a.resource ?? ''}"` };
  const kind = r.info.kind;
  const ns = r.info.scope === 'Namespaced' ? a.namespace || undefined : undefined;
  if (a.subresource && a.subresource !== 'status') return { allowed: false, reason: `${a.resource}/${a.subresource} is not served` };
  if (a.subresource === 'status' && !READS.has(verb)) return { allowed: false, reason: 'status is written by the control plane alone' };
  let allowed: boolean;
  if (READS.has(verb)) {
    if (a.name && (verb === 'get' || kind === 'Namespace')) allowed = canRead(p, kind, ns, a.name);
    else {
      const scope = listScope(p, kind);
      allowed = scope === 'all' || (scope !== null && ns !== undefined && scope.includes(ns)) || (scope !== null && kind === 'Namespace' && a.name !== undefined && scope.includes(a.name));
    }
  } else if (WRITES.has(verb)) {
    // a write to a namespaced kind is permitted per namespace: without one, only where every namespace is
    allowed = r.info.scope === 'Namespaced' && ns === undefined ? false : canWrite(p, kind, ns, a.name);
  } else {
    allowed = false;
  }
  const where = ns ? ` in namespace "${ns}"` : '';
  return { allowed, reason: `role ${p.role} ${allowed ? 'may' : 'may not'} ${verb} ${r.info.plural}${where}` };
}
