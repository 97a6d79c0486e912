// A stream is one object's history: kind/namespace/name (namespace '' for cluster-scoped kinds).
export function streamKey(kind: string, namespace: string, name: string): string {
  // joined, not concatenated: one string rather than a tree of its pieces (every object has a stream)
  return [kind, namespace, name].join('/');
}

export function parseStreamKey(stream: string): { kind: string; namespace: string; name: string } {
  const first = stream.indexOf('/');
  const second = stream.indexOf('/', first + 1);
  return { kind: stream.slice(0, first), namespace: stream.slice(first + 1, second), name: stream.slice(second + 1) };
}
