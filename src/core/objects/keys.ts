// A stream is one object's history: kind/namespace/name (namespace '' for cluster-scoped kinds).
export function streamKey(kind: string, namespace: string, name: string): string {
  // joined, not concatenated: one string rather than a tree of its pieces (every object has a stream)
  return [kind, namespace, name].join('/');
}

// an object's stream, made once per object: the steps that key a route by it (its share, its plan,
// its table ids) then hold one string a route, not one each
const STREAMS = new WeakMap<object, string>();

/** The stream of `o` (kept with the object: objects are not changed once read). */
export function streamOfObject(o: { kind: string; metadata: { namespace?: string; name: string } }): string {
  let s = STREAMS.get(o);
  if (s === undefined) STREAMS.set(o, (s = streamKey(o.kind, o.metadata.namespace ?? '', o.metadata.name)));
  return s;
}

export function parseStreamKey(stream: string): { kind: string; namespace: string; name: string } {
  const first = stream.indexOf('/');
  const second = stream.indexOf('/', first + 1);
  return { kind: stream.slice(0, first), namespace: stream.slice(first + 1, second), name: stream.slice(second + 1) };
}
