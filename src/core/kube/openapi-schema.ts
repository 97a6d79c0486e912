// The schemas of the served kinds as kube-apiserver publishes them in its OpenAPI documents, made
// from the JSON schemas validation uses (OpenAPI 3.1, JSON Schema 2020-12). kubectl reads them with
// OpenAPI 3.0 and Swagger 2.0 readers: `kubectl explain`'s templates compare `type` with a string
// (a type array is a template error), and the v2 reader refuses a `$ref` beside a `type`, a type
// union, an array without one `items`. So the published form keeps only what those readers know:
//   - one `type`; an int-or-string is `x-kubernetes-int-or-string: true` without a type (for the
//     built-in kinds a reference to io.k8s.apimachinery.pkg.util.intstr.IntOrString, as upstream);
//     a nullable type is `nullable: true`;
//   - no if/then/else, const, anyOf/oneOf/not, contentEncoding: the server still checks them;
//   - the Gateway API kinds inlined whole, as kube-apiserver publishes a CRD's schema, metadata
//     being a reference to ObjectMeta; the built-in kinds by reference to named definitions
//     (io.k8s.api.core.v1.ServiceSpec ...), as upstream names its Go types;
//   - the list, map and patch markers of the patch engines' table (markersOf), so that kubectl's
//     client-side apply merges Service ports by port, as this server does;
//   - apiVersion, kind and metadata described as kube-apiserver describes them for every kind.
import { markersOf } from '../kube-patch';

// any: JSON schemas of any shape, read and written as plain JSON
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = any;

/** The Go-type names upstream publishes for the shared and built-in definitions. */
const NAMED: Record<string, { name: string; builtInOnly: boolean }> = {
  ObjectMeta: { name: 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta', builtInOnly: false },
  OwnerReference: { name: 'io.k8s.apimachinery.pkg.apis.meta.v1.OwnerReference', builtInOnly: false },
  Condition: { name: 'io.k8s.apimachinery.pkg.apis.meta.v1.Condition', builtInOnly: true },
  ServiceSpec: { name: 'io.k8s.api.core.v1.ServiceSpec', builtInOnly: true },
  ServicePort: { name: 'io.k8s.api.core.v1.ServicePort', builtInOnly: true },
  Endpoint: { name: 'io.k8s.api.discovery.v1.Endpoint', builtInOnly: true },
  EndpointPort: { name: 'io.k8s.api.discovery.v1.EndpointPort', builtInOnly: true },
};

export const INT_OR_STRING = 'io.k8s.apimachinery.pkg.util.intstr.IntOrString';
const INT_OR_STRING_SCHEMA = {
  description: 'IntOrString is a type that can hold an int32 or a string. When used in JSON or YAML marshalling and unmarshalling, it produces or consumes the inner type.',
  format: 'int-or-string',
  'x-kubernetes-int-or-string': true,
};

/** The API groups whose kinds kube-apiserver serves from Go types (k8s.io/api/<group>/<version>). */
const BUILT_IN_GROUPS = new Set(['', 'discovery.k8s.io', 'authorization.k8s.io', 'events.k8s.io']);

/** A kind's definition name: io.k8s.api.core.v1.Service, io.k8s.networking.gateway.v1.HTTPRoute. */
export function definitionName(group: string, version: string, kind: string): string {
  if (BUILT_IN_GROUPS.has(group)) return `io.k8s.api.${group ? group.split('.')[0] : 'core'}.${version}.${kind}`;
  return `${group.split('.').reverse().join('.')}.${version}.${kind}`;
}

export function isBuiltInGroup(group: string): boolean {
  return BUILT_IN_GROUPS.has(group);
}

const TYPE_META = {
  apiVersion: 'APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources',
  kind: 'Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. Cannot be updated. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds',
  metadata: "Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata",
};

/** The keywords OpenAPI 3.0 schemas and Swagger 2.0 definitions share; everything else is dropped. */
const KEPT = new Set([
  'type', 'format', 'title', 'description', 'default', 'enum', 'pattern', 'multipleOf',
  'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'minLength', 'maxLength',
  'minItems', 'maxItems', 'uniqueItems', 'minProperties', 'maxProperties', 'required',
]);

export class SchemaConversionError extends Error {}

export const V3_REF = '#/components/schemas/';

/**
 * Converts kinds' schemas, sharing the named definitions among them. `components`: the generated
 * document's components.schemas. Definitions are made once, the first time a kind reaches them
 * (convert the built-in kinds first, so that ObjectMeta carries their patch markers).
 */
export class KubeSchemas {
  /** kube definition name -> OpenAPI 3.0 schema (references as #/components/schemas/...) */
  readonly definitions = new Map<string, Json>();
  private readonly kinds = new Map<string, Json>();

  constructor(private readonly components: Record<string, Json>) {}

  /** The definition of one kind in one version, marked with its group, version and kind. */
  kind(group: string, version: string, kind: string, component: string): { name: string; schema: Json } {
    const key = `${kind}\0${component}`;
    let body = this.kinds.get(key);
    if (!body) {
      const source = this.components[component];
      if (!source) throw new SchemaConversionError(`no schema ${component} for ${kind}`);
      const markers = new Map(markersOf(kind).map((m) => [m.path, m.extensions]));
      body = this.convert(source, '', { builtIn: isBuiltInGroup(group), markers });
      body.type = 'object';
      body.properties = { ...body.properties };
      for (const [field, description] of Object.entries(TYPE_META)) {
        if (field === 'metadata') body.properties.metadata = this.ref('ObjectMeta', { description }, '.metadata', { builtIn: isBuiltInGroup(group), markers });
        else body.properties[field] = { type: 'string', description };
      }
      this.kinds.set(key, body);
    }
    const name = definitionName(group, version, kind);
    return { name, schema: { ...body, 'x-kubernetes-group-version-kind': [{ group, kind, version }] } };
  }

  private ref(component: string, siblings: Json, path: string, ctx: Ctx): Json {
    const named = NAMED[component];
    if (!this.definitions.has(named.name)) {
      this.definitions.set(named.name, {}); // a placeholder: a cycle refers to it rather than recursing
      this.definitions.set(named.name, this.convert(this.components[component], path, ctx));
    }
    return { ...this.convertLocal(siblings, path, ctx), allOf: [{ $ref: V3_REF + named.name }] };
  }

  private convert(node: Json, path: string, ctx: Ctx): Json {
    if (node === null || typeof node !== 'object') throw new SchemaConversionError(`${path || '.'}: not a schema`);
    if (typeof node.$ref === 'string') {
      const { $ref, ...siblings } = node;
      const component = $ref.replace(/^#\/components\/schemas\//, '');
      const target = this.components[component];
      if (!target) throw new SchemaConversionError(`${path || '.'}: unknown reference ${$ref}`);
      const named = NAMED[component];
      if (named && (ctx.builtIn || !named.builtInOnly)) return this.ref(component, siblings, path, ctx);
      // inlined: the referring schema's own keywords (description, default) win over the target's
      return this.convert({ ...target, ...siblings }, path, ctx);
    }
    const out = this.convertLocal(node, path, ctx);
    if (out['x-kubernetes-int-or-string'] && ctx.builtIn) {
      this.definitions.set(INT_OR_STRING, INT_OR_STRING_SCHEMA);
      return { ...out, allOf: [{ $ref: V3_REF + INT_OR_STRING }] };
    }
    if (node.properties) {
      out.properties = {};
      for (const [k, v] of Object.entries(node.properties)) {
        const field = this.convert(v, `${path}.${k}`, ctx);
        // explain lists a field with its own description: a reference's field takes its target's
        const ref = field.allOf?.[0]?.$ref;
        if (!field.description && ref) field.description = this.definitions.get(ref.slice(V3_REF.length))?.description;
        out.properties[k] = field;
      }
    }
    if (node.items !== undefined) {
      if (Array.isArray(node.items) || typeof node.items !== 'object') throw new SchemaConversionError(`${path}: items must be one schema`);
      out.items = this.convert(node.items, `${path}[]`, ctx);
    }
    if (node.additionalProperties !== undefined) {
      out.additionalProperties = typeof node.additionalProperties === 'object' ? this.convert(node.additionalProperties, `${path}{}`, ctx) : node.additionalProperties;
    }
    return out;
  }

  /** A schema's own keywords, without its subschemas. */
  private convertLocal(node: Json, path: string, ctx: Ctx): Json {
    const out: Json = {};
    for (const [k, v] of Object.entries(node)) {
      if (KEPT.has(k) || k.startsWith('x-kubernetes-')) out[k] = v;
    }
    if (Array.isArray(node.type)) {
      const types = node.type.filter((t: string) => t !== 'null');
      if (types.length === 2 && types.includes('integer') && types.includes('string')) {
        delete out.type;
        out['x-kubernetes-int-or-string'] = true;
      } else if (types.length === 1) out.type = types[0];
      else throw new SchemaConversionError(`${path || '.'}: a value of types ${node.type.join(', ')} has no OpenAPI 3.0 form`);
      if (node.type.includes('null')) out.nullable = true;
    }
    if (out.type === 'null') throw new SchemaConversionError(`${path || '.'}: type null has no OpenAPI 3.0 form`);
    // JSON Schema 2020's numeric exclusive bounds are OpenAPI 3.0's boolean flags on minimum/maximum
    for (const [ex, bound] of [['exclusiveMinimum', 'minimum'], ['exclusiveMaximum', 'maximum']] as const) {
      if (typeof out[ex] === 'number') {
        out[bound] = out[ex];
        out[ex] = true;
      }
    }
    const markers = ctx.markers.get(path.replace(/^\./, ''));
    if (markers) Object.assign(out, markers);
    return out;
  }
}

interface Ctx {
  builtIn: boolean;
  markers: Map<string, Record<string, unknown>>;
}

/** The definition names a schema refers to, directly or through other definitions. */
export function referencedDefinitions(schema: Json, definitions: Map<string, Json>, into = new Set<string>()): Set<string> {
  const walk = (n: Json): void => {
    if (n === null || typeof n !== 'object') return;
    if (Array.isArray(n)) return n.forEach(walk);
    if (typeof n.$ref === 'string' && n.$ref.startsWith(V3_REF)) {
      const name = n.$ref.slice(V3_REF.length);
      if (!into.has(name)) {
        into.add(name);
        walk(definitions.get(name));
      }
    }
    for (const [k, v] of Object.entries(n)) if (k !== 'enum' && k !== 'default' && !k.startsWith('x-')) walk(v);
  };
  walk(schema);
  return into;
}

/**
 * The Swagger 2.0 form of a converted schema: references to #/definitions/..., written as
 * kube-apiserver writes them in /openapi/v2 (a `$ref` with its description beside it, no allOf),
 * and no `nullable`, which Swagger 2.0 does not have.
 */
export function toSwagger2(schema: Json): Json {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) return schema;
  const out: Json = {};
  for (const [k, v] of Object.entries(schema)) {
    if (k === 'nullable' || k === 'allOf') continue;
    if (k === 'properties') out.properties = Object.fromEntries(Object.entries(v as Json).map(([p, s]) => [p, toSwagger2(s)]));
    else if (k === 'items' || (k === 'additionalProperties' && typeof v === 'object')) out[k] = toSwagger2(v);
    else out[k] = v;
  }
  const ref = schema.allOf?.[0]?.$ref;
  if (typeof ref === 'string') {
    // the v2 reader refuses a reference with a type or properties beside it
    delete out.type;
    delete out.properties;
    out.$ref = `#/definitions/${ref.slice(V3_REF.length)}`;
  }
  return out;
}
