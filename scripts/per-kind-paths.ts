// One copy of every `{plural}` path per stored kind (src/core/model/kinds.ts), its request bodies and
// object answers pointing at the kind's own schemas (the ones validation compiles). Which kinds an
// operation serves is its `x-kinds` (Cluster, Namespaced or All), on the operation or its path.
import { KINDS, type KindInfo } from '../src/core/model/kinds';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const METHODS = ['get', 'put', 'post', 'patch', 'delete'] as const;
const OBJECT_BODY = '#/components/requestBodies/Object';
const OBJECT_ANSWER = '#/components/responses/Object';
const LIST_ANSWER = '#/components/responses/ObjectList';
const PLURAL_PARAMS = new Set(['#/components/parameters/Plural', '#/components/parameters/NamespacedPlural']);

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** The kind's schema: its one version schema, or any of them when versions differ (TLSRoute v1alpha2). */
function kindSchema(info: KindInfo): Json {
  const names = [...new Set(Object.values(info.versions))];
  return names.length === 1 ? ref(names[0]) : { oneOf: names.map(ref) };
}

function serves(scope: string, info: KindInfo): boolean {
  if (scope === 'All') return true;
  if (scope === 'Cluster' || scope === 'Namespaced') return info.scope === scope;
  throw new Error(`x-kinds must be Cluster, Namespaced or All, not ${scope}`);
}

export function perKindPaths(doc: Json): Json {
  const schemas: Json = doc.components.schemas;
  const responses: Json = doc.components.responses;
  for (const info of KINDS) {
    const list = `${info.kind}List`;
    if (list in schemas) throw new Error(`schema ${list} is defined in openapi/; it is generated`);
    const generic = schemas.ObjectList;
    schemas[list] = {
      ...generic,
      description: `A page of ${info.kind} objects.`,
      properties: { ...generic.properties, items: { type: 'array', items: kindSchema(info) } },
    };
  }

  const paths: Json = {};
  const added: Json = {};
  for (const [path, item] of Object.entries<Json>(doc.paths)) {
    const { 'x-kinds': pathScope, ...rest } = item;
    paths[path] = rest;
    if (!path.includes('{plural}')) continue;
    for (const m of METHODS) if (rest[m]) rest[m] = withoutScope(rest[m]);
    for (const info of KINDS) {
      const copy: Json = {};
      for (const m of METHODS) {
        const op = item[m];
        if (!op) continue;
        const scope = op['x-kinds'] ?? pathScope;
        if (!scope) throw new Error(`${m.toUpperCase()} ${path} has no x-kinds`);
        if (serves(scope, info)) copy[m] = forKind(withoutScope(op), info, responses);
      }
      if (Object.keys(copy).length === 0) continue;
      const params = (rest.parameters ?? []).filter((p: Json) => !PLURAL_PARAMS.has(p.$ref));
      added[path.replace('{plural}', info.plural)] = { ...(params.length ? { parameters: params } : {}), ...copy };
    }
  }
  doc.paths = { ...paths, ...added };

  const kindTags = KINDS.map((k) => ({ name: k.kind, description: `${k.kind} objects (${Object.keys(k.versions).join(', ')}), ${k.scope === 'Cluster' ? 'cluster-scoped' : 'namespaced'}` }));
  const at = doc.tags.findIndex((t: Json) => t.name === 'resources');
  doc.tags.splice(at + 1, 0, ...kindTags);
  return doc;
}

function withoutScope(op: Json): Json {
  const { 'x-kinds': _scope, ...rest } = op;
  return rest;
}

function forKind(op: Json, info: KindInfo, responses: Json): Json {
  const out: Json = { ...op, tags: [info.kind], operationId: `${op.operationId}${info.kind}` };
  if (op.requestBody?.$ref === OBJECT_BODY) {
    out.requestBody = { required: true, content: { 'application/json': { schema: kindSchema(info) } } };
  }
  out.responses = Object.fromEntries(Object.entries<Json>(op.responses).map(([code, r]) => {
    if (r.$ref === OBJECT_ANSWER) return [code, withSchema(responses.Object, kindSchema(info))];
    if (r.$ref === LIST_ANSWER) return [code, withSchema(responses.ObjectList, ref(`${info.kind}List`))];
    return [code, r];
  }));
  return out;
}

function withSchema(response: Json, schema: Json): Json {
  return { ...response, content: { 'application/json': { schema } } };
}
