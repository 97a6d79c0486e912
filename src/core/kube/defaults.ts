// Fields kube-apiserver always fills in, which typed clients dereference without a check (kubectl
// describe service reads every EndpointSlice port's name and protocol): filled in on the way out.
import type { K8sObject } from '../model/objects';

export function withServerDefaults(o: K8sObject): K8sObject {
  if (o.kind === 'EndpointSlice' && Array.isArray(o.ports)) {
    return { ...o, ports: o.ports.map((p: Record<string, unknown>) => ({ name: '', protocol: 'TCP', ...p })) };
  }
  return o;
}
