// A stream is one object's history: kind/namespace/name (namespace '' for cluster-scoped kinds).
export function streamKey(kind: string, namespace: string, name: string): string {
  return `${kind}/${namespace}/${name}`;
}
