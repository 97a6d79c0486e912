// What the patch engines must know of each kind's fields, and nothing more: which objects are maps
// (their keys are data, not field names), which maps are atomic, and how each list merges.
//
// Everything not named here follows the defaults kube-apiserver uses for a field without markers:
// an object is a struct whose fields merge one by one, a list is atomic (replaced whole, owned as one
// field). For the Gateway API kinds the markers are the CRDs' x-kubernetes-list-type,
// x-kubernetes-list-map-keys and x-kubernetes-map-type (upstream config/crd, experimental channel,
// the commit the validation corpus names); only the lists that are not atomic, and the atomic maps
// reachable outside atomic lists, need a line. For the core kinds they are the Go markers of
// k8s.io/api (+listType, +listMapKey, +mapType, and for strategic merge patch +patchStrategy and
// +patchMergeKey, which may differ from the list-map keys: Service ports merge by port alone).

export interface ListSchema {
  /** atomic: replaced whole; set: a set of scalars; map: items identified by `keys` */
  type: 'atomic' | 'set' | 'map';
  keys?: string[];
  /** a key field the server defaults when the item omits it (Service ports: protocol TCP) */
  keyDefaults?: Record<string, unknown>;
  items?: FieldSchema;
  /** strategic merge patch: merge with this key (maps) or as a set of scalars; else replace */
  patchMerge?: { key?: string };
}

export interface FieldSchema {
  /** a struct's declared fields; undeclared ones take the defaults */
  fields?: Record<string, FieldSchema>;
  /** a map: every value has this schema (and a map added whole is owned as one field, ".") */
  values?: FieldSchema;
  /** an object or map replaced and owned whole (x-kubernetes-map-type: atomic, +mapType=atomic) */
  atomic?: boolean;
  list?: ListSchema;
}

const STRUCT: FieldSchema = {};
const MAP: FieldSchema = { values: STRUCT };
const ATOMIC: FieldSchema = { atomic: true };

const struct = (fields: Record<string, FieldSchema>): FieldSchema => ({ fields });
const mapList = (keys: string[], items: FieldSchema = STRUCT, more: Partial<ListSchema> = {}): FieldSchema =>
  ({ list: { type: 'map', keys, items, ...more } });

// ObjectMeta, the same for every kind, CRDs included (kube-apiserver gives CRDs the built-in schema).
const METADATA = struct({
  labels: MAP,
  annotations: MAP,
  finalizers: { list: { type: 'set', patchMerge: {} } },
  ownerReferences: mapList(['uid'], STRUCT, { patchMerge: { key: 'uid' } }),
});

// Gateway API: the label selectors of allowedRoutes and allowedListeners are atomic maps.
const NAMESPACES_FROM = struct({ namespaces: struct({ selector: ATOMIC }) });
const LISTENERS = mapList(['name'], struct({ allowedRoutes: NAMESPACES_FROM }));

const SPECS: Record<string, FieldSchema> = {
  Gateway: struct({
    listeners: LISTENERS,
    allowedListeners: NAMESPACES_FROM,
    tls: struct({ frontend: struct({ perPort: mapList(['port']) }) }),
    infrastructure: struct({ labels: MAP, annotations: MAP }),
  }),
  ListenerSet: struct({ listeners: LISTENERS }),
  XListenerSet: struct({ listeners: LISTENERS }),
  Service: struct({
    ports: mapList(['port', 'protocol'], STRUCT, { keyDefaults: { protocol: 'TCP' }, patchMerge: { key: 'port' } }),
    selector: ATOMIC,
  }),
};

const TOP_LEVEL: Record<string, Record<string, FieldSchema>> = {
  Secret: { data: MAP, stringData: MAP },
  ConfigMap: { data: MAP, binaryData: MAP },
};

/** The kinds kube-apiserver serves from Go types, so that strategic merge patch applies to them. */
export const BUILT_IN_KINDS: ReadonlySet<string> = new Set(['Namespace', 'Service', 'EndpointSlice', 'Secret', 'ConfigMap']);

const byKind = new Map<string, FieldSchema>();

export function schemaOf(kind: string): FieldSchema {
  let s = byKind.get(kind);
  if (!s) {
    s = struct({ metadata: METADATA, ...(SPECS[kind] ? { spec: SPECS[kind] } : {}), ...TOP_LEVEL[kind] });
    byKind.set(kind, s);
  }
  return s;
}

/** The schema of a field of an object (a struct's field or a map's value). */
export function fieldOf(s: FieldSchema | undefined, name: string): FieldSchema {
  if (!s) return STRUCT;
  if (s.values) return s.values;
  return s.fields?.[name] ?? STRUCT;
}

export function itemsOf(s: FieldSchema | undefined): FieldSchema {
  return s?.list?.items ?? STRUCT;
}

export function listTypeOf(s: FieldSchema | undefined): ListSchema['type'] {
  return s?.list?.type ?? 'atomic';
}

/** One field's list or map markers, as an OpenAPI schema spells them. */
export interface FieldMarkers {
  /** dotted, "[]" for the items of a list: "spec.listeners[].allowedRoutes.namespaces.selector" */
  path: string;
  extensions: Record<string, unknown>;
}

/**
 * The markers of a kind's non-default fields, for a served OpenAPI document: kubectl computes a
 * client-side apply's strategic merge patch from the x-kubernetes-patch-* extensions of the schema
 * it finds for a built-in kind, so a schema without them makes kubectl replace Service ports whole
 * (and dropped ports then stay, since this server merges them by port).
 */
export function markersOf(kind: string): FieldMarkers[] {
  const out: FieldMarkers[] = [];
  const walk = (s: FieldSchema, path: string): void => {
    const ext: Record<string, unknown> = {};
    if (s.atomic) ext['x-kubernetes-map-type'] = 'atomic';
    if (s.list) {
      ext['x-kubernetes-list-type'] = s.list.type;
      if (s.list.keys) ext['x-kubernetes-list-map-keys'] = s.list.keys;
      if (s.list.patchMerge && BUILT_IN_KINDS.has(kind)) {
        ext['x-kubernetes-patch-strategy'] = 'merge';
        if (s.list.patchMerge.key) ext['x-kubernetes-patch-merge-key'] = s.list.patchMerge.key;
      }
    }
    if (Object.keys(ext).length > 0) out.push({ path, extensions: ext });
    for (const [k, c] of Object.entries(s.fields ?? {})) walk(c, path ? `${path}.${k}` : k);
    if (s.list?.items) walk(s.list.items, `${path}[]`);
  };
  walk(schemaOf(kind), '');
  return out;
}
