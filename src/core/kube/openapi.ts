// The OpenAPI documents kubectl reads, as kube-apiserver serves them:
//   /openapi/v3                      where each group/version's document is, with its hash
//   /openapi/v3/apis/{group}/{ver}   OpenAPI 3.0: `kubectl explain`, whether the server validates
//                                    fields itself (fieldValidation), client-side apply's patches
//   /openapi/v2                      Swagger 2.0 (JSON, or gnostic protobuf, which is what kubectl
//                                    asks for): its client-side validation when the v3 document
//                                    lacks a kind (an apiVersion not served), and a CRD kind's
//                                    patch type
// Each kind is marked with x-kubernetes-group-version-kind, its schema converted from the one
// validation uses (openapi-schema.ts), and its paths carry x-kubernetes-action. The documents
// depend on nothing but the code, so each is built once per process, with a hash of its bytes that
// serves as its ETag and as the v3 root's ?hash=.
import { createHash } from 'node:crypto';
import spec from '../../generated/openapi.json';
import { apiVersionOf, groups, resourcesAt } from './resources';
import { AUTHENTICATION_GROUP, AUTHORIZATION_GROUP } from './discovery';
import { EVENTS_GROUP } from './events';
import { patchTypesOf } from '../kube-patch';
import { isBuiltInGroup, KubeSchemas, V3_REF, referencedDefinitions, toSwagger2, type Json } from './openapi-schema';
import { swaggerToProtobuf } from './openapi-v2-protobuf';

/** What a document says of one kind at one group/version. */
interface Served {
  group: string;
  version: string;
  kind: string;
  plural: string;
  namespaced: boolean;
  /** the schema component in the generated document */
  component: string;
  /** the accepted patch media types, or null: the kind is only created (SelfSubjectAccessReview) */
  patchTypes: string[] | null;
  /** only read: listed and got (Events) */
  readOnly?: boolean;
}

function served(): Served[] {
  const out: Served[] = [];
  for (const g of groups()) {
    for (const version of g.versions) {
      for (const r of resourcesAt(g.name, version)) {
        out.push({
          group: g.name, version, kind: r.info.kind, plural: r.info.plural, namespaced: r.info.scope === 'Namespaced',
          component: r.info.versions[apiVersionOf(g.name, version)], patchTypes: patchTypesOf(r.info.kind),
        });
      }
    }
  }
  out.push({ group: AUTHORIZATION_GROUP, version: 'v1', kind: 'SelfSubjectAccessReview', plural: 'selfsubjectaccessreviews', namespaced: false, component: 'SelfSubjectAccessReview', patchTypes: null });
  out.push({ group: AUTHORIZATION_GROUP, version: 'v1', kind: 'SelfSubjectRulesReview', plural: 'selfsubjectrulesreviews', namespaced: false, component: 'SelfSubjectRulesReview', patchTypes: null });
  for (const version of ['v1', 'v1beta1'])
    out.push({ group: AUTHENTICATION_GROUP, version, kind: 'SelfSubjectReview', plural: 'selfsubjectreviews', namespaced: false, component: 'SelfSubjectReview', patchTypes: null });
  for (const [group, component] of [['', 'KubeCoreV1Event'], [EVENTS_GROUP, 'KubeEventsV1Event']]) {
    out.push({ group, version: 'v1', kind: 'Event', plural: 'events', namespaced: true, component, patchTypes: null, readOnly: true });
  }
  return out;
}

const QUERY = [
  ['dryRun', 'When present (All), the request is checked and answered but nothing is written.'],
  ['fieldManager', 'The name of the actor making the change (server-side apply).'],
  ['fieldValidation', 'Ignore, Warn or Strict: what to do with fields the schema does not know.'],
] as const;
const FORCE = ['force', 'Server-side apply: take the fields other managers own.'] as const;

/** One operation, before it is written in either document's form. */
interface Op {
  path: string;
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  action: string;
  query: readonly (readonly [string, string])[];
  body: boolean;
  consumes?: string[];
}

function operations(s: Served): Op[] {
  const base = s.group ? `/apis/${s.group}/${s.version}` : '/api/v1';
  const collection = s.namespaced ? `${base}/namespaces/{namespace}/${s.plural}` : `${base}/${s.plural}`;
  const one = `${collection}/{name}`;
  if (s.readOnly) return [{ path: collection, method: 'get', action: 'list', query: [], body: false }, { path: one, method: 'get', action: 'get', query: [], body: false }];
  if (!s.patchTypes) return [{ path: collection, method: 'post', action: 'post', query: QUERY, body: true }];
  return [
    { path: collection, method: 'get', action: 'list', query: [], body: false },
    { path: collection, method: 'post', action: 'post', query: QUERY, body: true },
    { path: one, method: 'get', action: 'get', query: [], body: false },
    { path: one, method: 'put', action: 'put', query: QUERY, body: true },
    { path: one, method: 'patch', action: 'patch', query: [...QUERY, FORCE], body: false, consumes: s.patchTypes },
    { path: one, method: 'delete', action: 'delete', query: [QUERY[0]], body: false },
    { path: `${one}/status`, method: 'get', action: 'get', query: [], body: false },
  ];
}

const pathParams = (path: string) => [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);

function v3Paths(s: Served, ref: string): Record<string, Json> {
  const gvk = { group: s.group, version: s.version, kind: s.kind };
  const schema = { $ref: V3_REF + ref };
  const out: Record<string, Json> = {};
  for (const op of operations(s)) {
    const item = (out[op.path] ??= { parameters: pathParams(op.path).map((name) => ({ name, in: 'path', required: true, description: `The ${name} of the object.`, schema: { type: 'string' } })) });
    item[op.method] = {
      'x-kubernetes-action': op.action,
      'x-kubernetes-group-version-kind': gvk,
      parameters: op.query.map(([name, description]) => ({ name, in: 'query', description, schema: { type: 'string' }, uniqueItems: true })),
      ...(op.body ? { requestBody: { content: { 'application/json': { schema } } } } : {}),
      // kubectl sends a strategic merge patch where the document lists it: for the built-in kinds only
      ...(op.consumes ? { requestBody: { content: Object.fromEntries(op.consumes.map((t) => [t, { schema: { type: 'object' } }])) } } : {}),
      responses: { 200: { description: 'OK', content: { 'application/json': { schema } } } },
    };
  }
  return out;
}

function v2Paths(s: Served, ref: string): Record<string, Json> {
  const gvk = { group: s.group, version: s.version, kind: s.kind };
  const schema = { $ref: `#/definitions/${ref}` };
  const out: Record<string, Json> = {};
  for (const op of operations(s)) {
    const item = (out[op.path] ??= { parameters: pathParams(op.path).map((name) => ({ name, in: 'path', required: true, description: `The ${name} of the object.`, type: 'string' })) });
    item[op.method] = {
      'x-kubernetes-action': op.action,
      'x-kubernetes-group-version-kind': gvk,
      consumes: op.consumes ?? ['*/*'],
      produces: ['application/json', 'application/yaml'],
      parameters: [
        ...(op.body ? [{ name: 'body', in: 'body', required: true, schema }] : []),
        ...op.query.map(([name, description]) => ({ name, in: 'query', description, type: 'string', uniqueItems: true })),
      ],
      responses: { 200: { description: 'OK', schema } },
    };
  }
  return out;
}

export interface ServedDocument {
  /** the document's JSON text */
  json: string;
  /** hex SHA-512 of the bytes, upper case (what kube-apiserver puts in the v3 root's ?hash=) */
  hash: string;
}

export interface OpenApiDocuments {
  /** by document path: "api/v1", "apis/gateway.networking.k8s.io/v1" */
  v3: Map<string, ServedDocument>;
  v3Root: ServedDocument;
  v2: ServedDocument & { protobuf: Buffer; protobufHash: string };
}

const hashOf = (b: string | Buffer) => createHash('sha512').update(b).digest('hex').toUpperCase();
const documentOf = (doc: unknown): ServedDocument => {
  const json = JSON.stringify(doc);
  return { json, hash: hashOf(json) };
};

export function documentPath(group: string, version: string): string {
  return group ? `apis/${group}/${version}` : `api/${version}`;
}

/**
 * Builds the documents (some 100 ms of CPU once warm, the v2 forms at their first use);
 * `openApiDocuments` keeps the result.
 */
export function buildOpenApiDocuments(): OpenApiDocuments {
  const components = (spec as Json).components.schemas as Record<string, Json>;
  const info = { title: 'Switchyard', version: (spec as Json).info?.version ?? '' };
  const kinds = new KubeSchemas(components);
  const all = served();
  // the built-in kinds first: the shared definitions (ObjectMeta) carry their patch markers
  const ordered = [...all.filter((s) => isBuiltInGroup(s.group)), ...all.filter((s) => !isBuiltInGroup(s.group))];
  const defs = new Map(ordered.map((s) => [s, kinds.kind(s.group, s.version, s.kind, s.component)]));

  const byDocument = new Map<string, Served[]>();
  for (const s of all) {
    const p = documentPath(s.group, s.version);
    byDocument.set(p, [...(byDocument.get(p) ?? []), s]);
  }
  const v3 = new Map<string, ServedDocument>();
  for (const [p, list] of byDocument) {
    const schemas: Record<string, Json> = {};
    let paths: Record<string, Json> = {};
    for (const s of list) {
      const { name, schema } = defs.get(s)!;
      schemas[name] = schema;
      paths = { ...paths, ...v3Paths(s, name) };
    }
    for (const name of [...referencedDefinitions(Object.values(schemas), kinds.definitions)].sort()) schemas[name] = kinds.definitions.get(name);
    v3.set(p, documentOf({ openapi: '3.0.0', info, paths, components: { schemas } }));
  }
  const root: Record<string, { serverRelativeURL: string }> = {};
  for (const [p, d] of v3) root[p] = { serverRelativeURL: `/openapi/v3/${p}?hash=${d.hash}` };

  // v2 is made at its first request: `kubectl explain` and the v3 readers never ask for it
  let v2: OpenApiDocuments['v2'] | undefined;
  const buildV2 = (): OpenApiDocuments['v2'] => {
    const definitions: Record<string, Json> = {};
    let paths: Record<string, Json> = {};
    for (const s of all) {
      const { name, schema } = defs.get(s)!;
      definitions[name] = toSwagger2(schema);
      paths = { ...paths, ...v2Paths(s, name) };
    }
    for (const [name, schema] of [...kinds.definitions].sort(([a], [b]) => a.localeCompare(b))) definitions[name] = toSwagger2(schema);
    const swagger = { swagger: '2.0', info, paths, definitions };
    const protobuf = swaggerToProtobuf(swagger);
    return { ...documentOf(swagger), protobuf, protobufHash: hashOf(protobuf) };
  };
  return {
    v3,
    v3Root: documentOf({ paths: root }),
    get v2() {
      return (v2 ??= buildV2());
    },
  };
}

let built: OpenApiDocuments | undefined;

/** The documents, built at the first call and kept for the life of the process. */
export function openApiDocuments(): OpenApiDocuments {
  return (built ??= buildOpenApiDocuments());
}
