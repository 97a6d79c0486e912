// A Map used as a small least-recently-used cache: a key set or touched moves to the end, and the
// oldest go once the map holds more than `max`.
export function keepRecent<K, V>(map: Map<K, V>, key: K, value: V, max: number): V {
  map.delete(key);
  map.set(key, value);
  for (const k of map.keys()) {
    if (map.size <= max) break;
    map.delete(k);
  }
  return value;
}
