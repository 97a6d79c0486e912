// The OpenAPI documents of the Kubernetes paths as kubectl's readers take them: every schema of
// every served kind free of what an OpenAPI 3.0 or Swagger 2.0 reader (kubectl explain's templates,
// kube-openapi's v2 parser) refuses or misreads, the Kubernetes extensions where kube-apiserver
// writes them, and the protobuf form of /openapi/v2 holding what the JSON holds.
import { describe, expect, it } from 'vitest';
import { buildOpenApiDocuments, openApiDocuments } from '../../src/core/kube/openapi';
import { INT_OR_STRING, KubeSchemas, SchemaConversionError } from '../../src/core/kube/openapi-schema';
import { aggregated } from '../../src/core/kube/discovery';
import spec from '../../src/generated/openapi.json';

const docs = openApiDocuments();
const v3 = new Map([...docs.v3].map(([p, d]) => [p, JSON.parse(d.json)]));
const v2 = JSON.parse(docs.v2.json);

const COMMON = ['type', 'format', 'title', 'description', 'default', 'enum', 'pattern', 'multipleOf', 'minimum', 'maximum',
  'exclusiveMinimum', 'exclusiveMaximum', 'minLength', 'maxLength', 'minItems', 'maxItems', 'uniqueItems', 'minProperties',
  'maxProperties', 'required', 'properties', 'items', 'additionalProperties'];
const V3_KEYS = new Set([...COMMON, 'nullable', 'allOf']);
const V2_KEYS = new Set([...COMMON, '$ref']);
const TYPES = new Set(['object', 'array', 'string', 'integer', 'number', 'boolean']);

/** What a reader of that flavour would refuse or misread in one schema and its subschemas. */
function problems(schema: any, flavour: 'v2' | 'v3', resolve: (ref: string) => any, at: string, out: string[] = []): string[] {
  const bad = (what: string) => out.push(`${at}: ${what}`);
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) return bad('not a schema'), out;
  for (const k of Object.keys(schema)) {
    if (!(flavour === 'v3' ? V3_KEYS : V2_KEYS).has(k) && !k.startsWith('x-kubernetes-')) bad(`keyword ${k}`);
  }
  if (schema.type !== undefined && (typeof schema.type !== 'string' || !TYPES.has(schema.type))) bad(`type ${JSON.stringify(schema.type)}`);
  if (schema['x-kubernetes-int-or-string'] && schema.type) bad('int-or-string with a type');
  if (schema.type === 'array' && !schema.items) bad('array without items');
  for (const ex of ['exclusiveMinimum', 'exclusiveMaximum']) if (ex in schema && typeof schema[ex] !== 'boolean') bad(`${ex} not a boolean`);
  if (flavour === 'v3' && schema.allOf) {
    // kube-apiserver's form of a reference with its own description: allOf of one $ref
    if (schema.allOf.length !== 1 || Object.keys(schema.allOf[0]).join() !== '$ref') bad('allOf other than one reference');
    else if (!resolve(schema.allOf[0].$ref)) bad(`unresolved ${schema.allOf[0].$ref}`);
    if (schema.type || schema.properties) bad('a reference beside a type or properties');
  }
  if (flavour === 'v2' && schema.$ref) {
    if (!resolve(schema.$ref)) bad(`unresolved ${schema.$ref}`);
    // kube-openapi's v2 parser: "definition reference can't have a type", "unallowed embedded type definition"
    if (schema.type || schema.properties) bad('a reference beside a type or properties');
  }
  for (const [k, v] of Object.entries(schema.properties ?? {})) problems(v, flavour, resolve, `${at}.${k}`, out);
  if (schema.items) problems(schema.items, flavour, resolve, `${at}[]`, out);
  if (schema.additionalProperties && typeof schema.additionalProperties === 'object') problems(schema.additionalProperties, flavour, resolve, `${at}{}`, out);
  return out;
}

/** Every served kind and version, as aggregated discovery lists them. */
const servedKinds = [...aggregated(true).items, ...aggregated(false).items].flatMap((g: any) =>
  g.versions.flatMap((v: any) => v.resources.map((r: any) => ({ group: g.metadata.name ?? '', version: v.version, kind: r.responseKind.kind }))));

describe('the OpenAPI documents of the Kubernetes paths', () => {
  it('hold every kind discovery lists, in every version, marked with its group, version and kind, with its paths', () => {
    expect(servedKinds.length).toBeGreaterThan(20);
    for (const gvk of servedKinds) {
      const doc = v3.get(gvk.group ? `apis/${gvk.group}/${gvk.version}` : `api/${gvk.version}`)!;
      expect(doc, `${gvk.group}/${gvk.version}`).toBeDefined();
      const marked = (schemas: Record<string, any>) => Object.values(schemas).filter((s) => (s['x-kubernetes-group-version-kind'] ?? []).some((x: any) => x.group === gvk.group && x.version === gvk.version && x.kind === gvk.kind));
      expect(marked(doc.components.schemas), JSON.stringify(gvk)).toHaveLength(1);
      expect(marked(v2.definitions), JSON.stringify(gvk)).toHaveLength(1);
      const ops = (paths: Record<string, any>) => Object.values(paths).flatMap((item) => Object.values(item)).filter((op: any) => op['x-kubernetes-group-version-kind']?.kind === gvk.kind && op['x-kubernetes-group-version-kind']?.version === gvk.version && op['x-kubernetes-group-version-kind']?.group === gvk.group);
      expect(ops(doc.paths).length, JSON.stringify(gvk)).toBeGreaterThan(0);
      expect(ops(v2.paths).length, JSON.stringify(gvk)).toBeGreaterThan(0);
    }
  });

  it('use nothing an OpenAPI 3.0 reader or kubectl explain refuses, in any schema of any kind', () => {
    for (const [p, doc] of v3) {
      const schemas = doc.components.schemas;
      const resolve = (ref: string) => ref.startsWith('#/components/schemas/') && schemas[ref.slice('#/components/schemas/'.length)];
      for (const [name, s] of Object.entries(schemas)) expect(problems(s, 'v3', resolve, `${p} ${name}`)).toEqual([]);
    }
  });

  it('use nothing the Swagger 2.0 reader of kubectl (kube-openapi) refuses, in any definition', () => {
    const resolve = (ref: string) => ref.startsWith('#/definitions/') && v2.definitions[ref.slice('#/definitions/'.length)];
    for (const [name, s] of Object.entries(v2.definitions)) expect(problems(s, 'v2', resolve, name)).toEqual([]);
  });

  it('describe every field of every kind (kubectl explain would print <no description>)', () => {
    const missing: string[] = [];
    for (const [, doc] of v3) {
      const S = doc.components.schemas;
      const res = (s: any): any => (s.allOf ? res(S[s.allOf[0].$ref.split('/').pop()]) : s);
      const walk = (s: any, at: string): void => {
        s = res(s);
        if (s.items) return walk(s.items, `${at}[]`);
        if (s.additionalProperties && typeof s.additionalProperties === 'object') return walk(s.additionalProperties, `${at}{}`);
        for (const [k, v] of Object.entries<any>(s.properties ?? {})) {
          if (!v.description) missing.push(`${at}.${k}`);
          walk(v, `${at}.${k}`);
        }
      };
      for (const [name, s] of Object.entries<any>(S)) if (s['x-kubernetes-group-version-kind']) walk(s, name);
    }
    expect(missing).toEqual([]);
  });

  it("write Service's targetPort as kube-apiserver does: a reference to IntOrString, x-kubernetes-int-or-string, no type", () => {
    const core = v3.get('api/v1')!.components.schemas;
    const targetPort = core['io.k8s.api.core.v1.ServicePort'].properties.targetPort;
    expect(targetPort).toMatchObject({ allOf: [{ $ref: `#/components/schemas/${INT_OR_STRING}` }], 'x-kubernetes-int-or-string': true });
    expect(targetPort.type).toBeUndefined();
    expect(core[INT_OR_STRING]).toMatchObject({ format: 'int-or-string', 'x-kubernetes-int-or-string': true });
    expect(core[INT_OR_STRING].type).toBeUndefined();
  });

  it('carry the list, map and patch markers upstream declares: Service ports merge by port, listeners are a map by name', () => {
    const core = v3.get('api/v1')!.components.schemas;
    expect(core['io.k8s.api.core.v1.ServiceSpec'].properties.ports).toMatchObject({
      'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['port', 'protocol'],
      'x-kubernetes-patch-strategy': 'merge', 'x-kubernetes-patch-merge-key': 'port',
    });
    const meta = core['io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta'];
    expect(meta.properties.finalizers).toMatchObject({ 'x-kubernetes-list-type': 'set', 'x-kubernetes-patch-strategy': 'merge' });
    expect(meta.properties.ownerReferences).toMatchObject({ 'x-kubernetes-patch-merge-key': 'uid', 'x-kubernetes-list-map-keys': ['uid'] });
    const gw = v3.get('apis/gateway.networking.k8s.io/v1')!.components.schemas;
    expect(gw['io.k8s.networking.gateway.v1.Gateway'].properties.spec.properties.listeners).toMatchObject({ 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'] });
    // kubectl sends a CRD kind merge patches; a patch strategy there would be a lie
    expect(JSON.stringify(gw['io.k8s.networking.gateway.v1.HTTPRoute'])).not.toContain('x-kubernetes-patch-strategy');
    expect(gw['io.k8s.networking.gateway.v1.Gateway'].properties.status.properties.conditions).toMatchObject({ 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['type'] });
  });

  it('offer strategic merge patch for the built-in kinds only, in both documents', () => {
    const patchOf = (paths: any, p: string) => paths[p].patch;
    expect(Object.keys(patchOf(v3.get('api/v1')!.paths, '/api/v1/namespaces/{namespace}/services/{name}').requestBody.content)).toContain('application/strategic-merge-patch+json');
    expect(patchOf(v2.paths, '/api/v1/namespaces/{namespace}/services/{name}').consumes).toContain('application/strategic-merge-patch+json');
    const route = '/apis/gateway.networking.k8s.io/v1/namespaces/{namespace}/httproutes/{name}';
    expect(patchOf(v2.paths, route).consumes).not.toContain('application/strategic-merge-patch+json');
    expect(patchOf(v2.paths, route).parameters.map((p: any) => p.name)).toContain('fieldValidation');
  });

  it('are built once per process; the v3 root names each document by the hash that is its ETag', () => {
    expect(openApiDocuments()).toBe(docs);
    const root = JSON.parse(docs.v3Root.json);
    for (const [p, d] of docs.v3) expect(root.paths[p].serverRelativeURL).toBe(`/openapi/v3/${p}?hash=${d.hash}`);
    // the same code makes the same bytes: a client's cached copy stays good across restarts
    expect(buildOpenApiDocuments().v2.hash).toBe(docs.v2.hash);
  });
});

describe('the conversion of a schema', () => {
  const convert = (schema: any) => new KubeSchemas({ ...spec.components.schemas, X: { type: 'object', properties: { f: schema } } }).kind('example.com', 'v1', 'X', 'X').schema.properties.f;

  it('makes a type union of integer and string x-kubernetes-int-or-string, a nullable type nullable', () => {
    expect(convert({ type: ['integer', 'string'], description: 'd' })).toEqual({ 'x-kubernetes-int-or-string': true, description: 'd' });
    expect(convert({ type: ['string', 'null'] })).toEqual({ type: 'string', nullable: true });
  });

  it('drops what OpenAPI 3.0 lacks (if/then, const, anyOf, contentEncoding) and turns numeric exclusive bounds into flags', () => {
    expect(convert({ type: 'string', if: { const: 'a' }, then: { anyOf: [{ format: 'ipv4' }] }, contentEncoding: 'base64' })).toEqual({ type: 'string' });
    expect(convert({ type: 'number', exclusiveMinimum: 0 })).toEqual({ type: 'number', minimum: 0, exclusiveMinimum: true });
  });

  it('refuses a type union OpenAPI 3.0 cannot say, naming the field', () => {
    expect(() => convert({ type: ['string', 'boolean'] })).toThrow(SchemaConversionError);
    expect(() => convert({ type: ['string', 'boolean'] })).toThrow(/\.f/);
  });
});

/** A protobuf message's fields: number -> the values (sub-messages and strings as bytes). */
function fields(buf: Buffer): Map<number, (Buffer | number)[]> {
  const out = new Map<number, (Buffer | number)[]>();
  let i = 0;
  const varint = () => {
    let v = 0;
    let mul = 1;
    for (;;) {
      const b = buf[i++];
      v += (b & 0x7f) * mul;
      if (!(b & 0x80)) return v;
      mul *= 128;
    }
  };
  while (i < buf.length) {
    const key = varint();
    const no = Math.floor(key / 8);
    let value: Buffer | number;
    if ((key & 7) === 0) value = varint();
    else if ((key & 7) === 1) value = buf.readDoubleLE((i += 8) - 8);
    else {
      const len = varint();
      value = buf.subarray(i, (i += len));
    }
    out.set(no, [...(out.get(no) ?? []), value]);
  }
  return out;
}

describe('/openapi/v2 as protobuf (gnostic openapi.v2.Document)', () => {
  const doc = fields(docs.v2.protobuf);
  const str = (m: Map<number, (Buffer | number)[]>, no: number) => (m.get(no)?.[0] as Buffer | undefined)?.toString('utf8');

  it('holds the swagger version, every definition and every path of the JSON form', () => {
    expect(str(doc, 1)).toBe('2.0');
    const definitions = fields(doc.get(9)![0] as Buffer).get(1)!.map((b) => str(fields(b as Buffer), 1));
    expect(definitions).toEqual(Object.keys(v2.definitions));
    const paths = fields(doc.get(8)![0] as Buffer).get(2)!.map((b) => str(fields(b as Buffer), 1));
    expect(paths).toEqual(Object.keys(v2.paths));
  });

  it('writes a schema field by field: description, type, properties, the group-version-kind as YAML', () => {
    const named = fields(doc.get(9)![0] as Buffer).get(1)!.map((b) => fields(b as Buffer)).find((m) => str(m, 1) === 'io.k8s.api.core.v1.Service')!;
    const schema = fields(named.get(2)![0] as Buffer);
    expect(str(schema, 4)).toBe(v2.definitions['io.k8s.api.core.v1.Service'].description);
    expect(str(fields(schema.get(22)![0] as Buffer), 1)).toBe('object');
    const props = fields(schema.get(25)![0] as Buffer).get(1)!.map((b) => str(fields(b as Buffer), 1));
    expect(props).toEqual(Object.keys(v2.definitions['io.k8s.api.core.v1.Service'].properties));
    const ext = schema.get(31)!.map((b) => fields(b as Buffer)).find((m) => str(m, 1) === 'x-kubernetes-group-version-kind')!;
    expect(JSON.parse(str(fields(ext.get(2)![0] as Buffer), 2)!)).toEqual([{ group: '', kind: 'Service', version: 'v1' }]);
  });
});
