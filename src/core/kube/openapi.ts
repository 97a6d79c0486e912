// The OpenAPI v3 documents kubectl reads (`kubectl explain`, and whether the server validates fields
// itself): /openapi/v3 lists one document per group/version; each holds the kinds served there,
// marked with x-kubernetes-group-version-kind, their schemas being the ones validation uses, and
// the object paths with their query parameters (fieldValidation among them).
import { createHash } from 'node:crypto';
import spec from '../../generated/openapi.json';
import { apiVersionOf, groups, resourcesAt, type KubeResource } from './resources';
import { patchTypesOf } from '../kube-patch';

// any: the generated document is JSON whose schemas this module copies without knowing them
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

function schemaName(group: string, version: string, kind: string): string {
  const g = group ? group.split('.').reverse().join('.') : 'io.k8s.api.core';
  return `${g}.${version}.${kind}`;
}

const QUERY = (name: string, description: string) => ({ name, in: 'query', description, schema: { type: 'string' }, uniqueItems: true });
const WRITE_PARAMS = [
  QUERY('dryRun', 'When present (All), the request is checked and answered but nothing is written.'),
  QUERY('fieldManager', 'The name of the actor making the change (server-side apply).'),
  QUERY('fieldValidation', 'Ignore, Warn or Strict: what to do with fields the schema does not know.'),
];

function paths(r: KubeResource, version: string): Record<string, Json> {
  const gvk = { group: r.group, version, kind: r.info.kind };
  const base = r.group ? `/apis/${r.group}/${version}` : '/api/v1';
  const collection = r.info.scope === 'Namespaced' ? `${base}/namespaces/{namespace}/${r.info.plural}` : `${base}/${r.info.plural}`;
  const ref = { $ref: `#/components/schemas/${schemaName(r.group, version, r.info.kind)}` };
  const body = { content: { 'application/json': { schema: ref } } };
  const ok = { 200: { description: 'OK', content: { 'application/json': { schema: ref } } } };
  const op = (action: string, extra: Json = {}) => ({ 'x-kubernetes-action': action, 'x-kubernetes-group-version-kind': gvk, responses: ok, ...extra });
  // kubectl sends a strategic merge patch where the document lists it: for the built-in kinds only
  const patchBody = { content: Object.fromEntries(patchTypesOf(r.info.kind).map((t) => [t, { schema: { type: 'object' } }])) };
  return {
    [collection]: {
      get: op('list'),
      post: op('post', { parameters: WRITE_PARAMS, requestBody: body }),
    },
    [`${collection}/{name}`]: {
      get: op('get'),
      put: op('put', { parameters: WRITE_PARAMS, requestBody: body }),
      patch: op('patch', { parameters: [...WRITE_PARAMS, QUERY('force', 'Server-side apply: take the fields other managers own.')], requestBody: patchBody }),
      delete: op('delete', { parameters: [WRITE_PARAMS[0]] }),
    },
  };
}

/** The document of one group/version, or null when it is not served. */
export function groupVersionDocument(group: string, version: string): Json | null {
  const served = resourcesAt(group, version);
  if (served.length === 0) return null;
  const schemas: Record<string, Json> = { ...(spec as Json).components.schemas };
  let allPaths: Record<string, Json> = {};
  for (const r of served) {
    const own = (spec as Json).components.schemas[r.info.versions[apiVersionOf(group, version)]];
    schemas[schemaName(group, version, r.info.kind)] = { ...own, 'x-kubernetes-group-version-kind': [{ group, version, kind: r.info.kind }] };
    allPaths = { ...allPaths, ...paths(r, version) };
  }
  return { openapi: '3.0.0', info: { title: 'Switchyard', version: (spec as Json).info?.version ?? '' }, paths: allPaths, components: { schemas } };
}

const hashes = new Map<string, string>();

function hashOf(group: string, version: string): string {
  const key = `${group}/${version}`;
  let h = hashes.get(key);
  if (!h) {
    h = createHash('sha512').update(JSON.stringify(groupVersionDocument(group, version))).digest('hex').slice(0, 128).toUpperCase();
    hashes.set(key, h);
  }
  return h;
}

export function documentPath(group: string, version: string): string {
  return group ? `apis/${group}/${version}` : `api/${version}`;
}

/** /openapi/v3: where each group/version's document is, with a hash that changes with it. */
export function v3Root() {
  const out: Record<string, { serverRelativeURL: string }> = {};
  for (const g of groups()) {
    for (const v of g.versions) {
      const p = documentPath(g.name, v);
      out[p] = { serverRelativeURL: `/openapi/v3/${p}?hash=${hashOf(g.name, v)}` };
    }
  }
  return { paths: out };
}
