// A kubeconfig for one bearer token: kubectl and client libraries then talk to the Kubernetes paths
// (the server URL ends with their prefix) as to any cluster.
import { stringify } from 'yaml';

/** `authority`: the PEM of the certificate authority to trust (a self-signed server certificate). */
export function kubeconfig(server: string, user: string, token: string, authority?: string, context = 'switchyard'): string {
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: context, cluster: { server, ...(authority ? { 'certificate-authority-data': Buffer.from(authority).toString('base64') } : {}) } }],
    users: [{ name: user, user: { token } }],
    contexts: [{ name: context, context: { cluster: context, user, namespace: 'default' } }],
    'current-context': context,
    preferences: {},
  });
}
