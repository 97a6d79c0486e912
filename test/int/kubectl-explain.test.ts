// kubectl 1.32 reading the OpenAPI documents as it reads kube-apiserver's: `kubectl explain` for every
// field of every kind discovery lists, in every served version; the v2 document (protobuf) parsed by
// kubectl's own reader; a wrong apiVersion answered with kubectl's "no matches for kind"; a wrong
// field named. Skipped, saying why, where kubectl is absent.
//
// The walk: for each kind and version, `kubectl explain --recursive` (the v3 template, then the v2
// one) must list exactly the field tree the document holds; then `kubectl explain KIND.path` for the
// kind and for every field that has fields of its own prints that field's type and description and
// lists each of its fields with its type and description. So every field path is printed by kubectl
// with its type (by --recursive and by its parent) and its description (by its parent), in one
// invocation per distinct object field rather than one per field path (some 150 invocations instead
// of 1,900; kubectl costs 0.1-0.2 s of CPU each).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ADMIN_TOKEN, startTestServer, type TestServer } from '../support/server';
import { kubectlFor, kubectlMissing, type Kubectl } from '../support/kubectl';
import { tempDir } from '../support/temp-dir';

const missing = kubectlMissing();
if (missing) console.log(`test/int/kubectl-explain.test.ts skipped: ${missing}`);

let s: TestServer;
let k: Kubectl;

interface Kind {
  resource: string;
  apiVersion: string;
  kind: string;
  schema: any;
  schemas: Record<string, any>;
}

/** Runs jobs a few at a time: the machine has two cores, and each kubectl is a process. */
async function pool<T>(items: T[], size: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: size }, async () => {
    while (next < items.length) await fn(items[next++]);
  }));
}

const refName = (ref: string) => ref.split('/').pop()!;

/** A field's schema with a reference followed (kube-apiserver's allOf of one $ref). */
function resolved(s: any, schemas: Record<string, any>): any {
  if (s.allOf?.length === 1 && !s.properties) return resolved(schemas[refName(s.allOf[0].$ref)], schemas);
  return s;
}

/** The object schema whose fields a field path's next segment names (through lists and maps). */
function fieldsOf(s: any, schemas: Record<string, any>): Record<string, any> | undefined {
  const r = resolved(s, schemas);
  if (r.properties) return r.properties;
  if (r.items) return fieldsOf(r.items, schemas);
  if (r.additionalProperties && typeof r.additionalProperties === 'object') return fieldsOf(r.additionalProperties, schemas);
  return undefined;
}

/** What kubectl's v3 template prints as a field's type (its "typeGuess"). */
function typeOf(s: any, schemas: Record<string, any>): string {
  if (s.items) return `[]${typeOf(s.items, schemas)}`;
  if (s.additionalProperties && typeof s.additionalProperties === 'object') return `map[string]${typeOf(s.additionalProperties, schemas)}`;
  if (s.allOf?.length === 1 && !s.properties) {
    const target = schemas[refName(s.allOf[0].$ref)];
    return !target.type || target.type === 'object' ? refName(s.allOf[0].$ref).split('.').pop()! : target.type;
  }
  return !s.type || s.type === 'object' ? 'Object' : s.type;
}

/** The schema of a field of a kind, by its path. */
function schemaAt(kind: Kind, path: string): any {
  let schema = kind.schema;
  for (const seg of path.split('.')) schema = fieldsOf(schema, kind.schemas)![seg];
  return schema;
}

/** Every field path of a kind ("spec.rules.matches.path.type"), with the paths that have fields. */
function fieldPaths(k: Kind): { all: string[]; parents: string[] } {
  const all: string[] = [];
  const parents: string[] = [''];
  const walk = (s: any, at: string) => {
    for (const [name, sub] of Object.entries<any>(fieldsOf(s, k.schemas) ?? {})) {
      const p = at ? `${at}.${name}` : name;
      all.push(p);
      if (fieldsOf(sub, k.schemas)) {
        parents.push(p);
        walk(sub, p);
      }
    }
  };
  walk(k.schema, '');
  return { all, parents };
}

/** The field paths a `kubectl explain --recursive` prints, from their indentation, with their types. */
function recursiveTree(stdout: string, indentPerLevel: number, firstIndent: number): Map<string, string> {
  const out = new Map<string, string>();
  const stack: string[] = [];
  const fieldsAt = stdout.indexOf('FIELDS:\n');
  for (const line of stdout.slice(fieldsAt + 8).split('\n')) {
    const m = line.match(/^( +)([^\s]+)\t<(.*)>/);
    if (!m) continue;
    const depth = (m[1].length - firstIndent) / indentPerLevel;
    stack.length = depth;
    stack.push(m[2]);
    out.set(stack.join('.'), m[3]);
  }
  return out;
}

/** The fields `kubectl explain` lists under FIELDS:, each with its printed type and description. */
function listedFields(stdout: string): Map<string, { type: string; description: string }> {
  const out = new Map<string, { type: string; description: string }>();
  const lines = stdout.slice(stdout.indexOf('FIELDS:\n') + 8).split('\n');
  let current: { type: string; description: string } | undefined;
  for (const line of lines) {
    const m = line.match(/^ {2}([^\s]+)\t<(.*)>( -required-)?$/);
    if (m) out.set(m[1], (current = { type: m[2], description: '' }));
    else if (current && /^ {4}\S/.test(line)) current.description += line.trim() + ' ';
  }
  return out;
}

async function explain(args: string[]): Promise<string> {
  const r = await k.run(['explain', ...args]);
  if (r.code !== 0 || r.stderr.trim() !== '') throw new Error(`kubectl explain ${args.join(' ')}: exit ${r.code}\n${r.stderr}`);
  return r.stdout;
}

async function servedKinds(): Promise<Kind[]> {
  const accept = { accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList' };
  const groups = [...(await s.api('GET', '/k8s/api', undefined, accept)).body.items, ...(await s.api('GET', '/k8s/apis', undefined, accept)).body.items];
  const root = (await s.api('GET', '/k8s/openapi/v3')).body.paths;
  const out: Kind[] = [];
  for (const g of groups) {
    const group = g.metadata.name ?? '';
    for (const v of g.versions) {
      const docPath = group ? `apis/${group}/${v.version}` : `api/${v.version}`;
      const doc = (await s.api('GET', `/k8s${root[docPath].serverRelativeURL}`)).body;
      for (const r of v.resources) {
        const kind = r.responseKind.kind;
        const schema = Object.values<any>(doc.components.schemas).find((x) => x['x-kubernetes-group-version-kind']?.some((gvk: any) => gvk.kind === kind && gvk.version === v.version && gvk.group === group));
        out.push({ resource: r.resource, apiVersion: group ? `${group}/${v.version}` : v.version, kind, schema, schemas: doc.components.schemas });
      }
    }
  }
  return out;
}

describe.skipIf(missing !== null)('kubectl explain and validation against the OpenAPI documents', () => {
  let kinds: Kind[];
  beforeAll(async () => {
    s = await startTestServer({ rateLimitPerSecond: 0 });
    k = kubectlFor(s, ADMIN_TOKEN, 'admin');
    kinds = await servedKinds();
  }, 180_000);
  afterAll(async () => {
    await s?.close();
  });

  it('every kind discovery lists has a schema in its version’s document', () => {
    expect(kinds.length).toBeGreaterThan(20);
    for (const kind of kinds) expect(kind.schema, `${kind.kind} ${kind.apiVersion}`).toBeDefined();
    expect(kinds.map((x) => x.kind)).toEqual(expect.arrayContaining(['HTTPRoute', 'Gateway', 'GatewayClass', 'Namespace', 'Service', 'EndpointSlice', 'Secret', 'ConfigMap', 'SelfSubjectAccessReview']));
  });

  it('explain --recursive lists every field path of every kind in every version, from the v3 and the v2 (protobuf) document', async () => {
    await pool(kinds, 3, async (kind) => {
      const expected = fieldPaths(kind).all;
      const v3 = await explain([kind.resource, `--api-version=${kind.apiVersion}`, '--recursive']);
      expect(v3, `${kind.kind} ${kind.apiVersion}`).toContain(`KIND:       ${kind.kind}`);
      const tree = recursiveTree(v3, 2, 2);
      expect([...tree.keys()].sort(), `${kind.kind} ${kind.apiVersion}`).toEqual([...expected].sort());
      for (const path of expected) expect(tree.get(path), `${kind.kind} ${kind.apiVersion} ${path}`).toBe(typeOf(schemaAt(kind, path), kind.schemas));
      const v2 = await explain([kind.resource, `--api-version=${kind.apiVersion}`, '--recursive', '--output=plaintext-openapiv2']);
      expect([...recursiveTree(v2, 3, 3).keys()].sort(), `${kind.kind} ${kind.apiVersion} (v2)`).toEqual([...expected].sort());
    });
  }, 300_000);

  it('explain KIND.path prints the type and description of every field of every kind in every version', async () => {
    // kubectl prints a field from its schema alone: a field whose schema another kind or version
    // shares (metadata, conditions, parentRefs, a kind served in two versions) is explained once
    const seen = new Set<string>();
    const jobs = kinds.flatMap((kind) => fieldPaths(kind).parents.map((path) => ({ kind, path }))).filter(({ kind, path }) => {
      const { 'x-kubernetes-group-version-kind': _, ...schema } = path ? schemaAt(kind, path) : kind.schema;
      const key = `${path.split('.').pop()}\0${JSON.stringify(schema)}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
    let fields = 0;
    await pool(jobs, 3, async ({ kind, path }) => {
      const where = `${kind.kind} ${kind.apiVersion} ${path || '(the kind)'}`;
      const out = await explain([path ? `${kind.resource}.${path}` : kind.resource, `--api-version=${kind.apiVersion}`]);
      // the field itself: its type on the FIELD line, its description under DESCRIPTION
      const schema = path ? schemaAt(kind, path) : kind.schema;
      if (path) expect(out, where).toContain(`FIELD: ${path.split('.').pop()} <${typeOf(schema, kind.schemas)}>`);
      const description = out.slice(out.indexOf('DESCRIPTION:\n') + 13, out.indexOf('FIELDS:')).trim();
      expect(description, where).not.toBe('<empty>');
      expect(description.length, where).toBeGreaterThan(0);
      // each of its fields: listed with the type the schema gives and a description
      const listed = listedFields(out);
      const own = fieldsOf(schema, kind.schemas)!;
      expect([...listed.keys()].sort(), where).toEqual(Object.keys(own).sort());
      for (const [name, sub] of Object.entries<any>(own)) {
        const f = listed.get(name)!;
        expect(f.type, `${where}.${name}`).toBe(typeOf(sub, kind.schemas));
        expect(f.description, `${where}.${name}`).not.toContain('<no description>');
        expect(f.description.trim().length, `${where}.${name}`).toBeGreaterThan(0);
        fields++;
      }
    });
    expect(jobs.length).toBeGreaterThan(100);
    expect(fields).toBeGreaterThan(500);
  }, 600_000);

  it('explain prints an int-or-string, an enum and a map as kube-apiserver’s documents make it print them', async () => {
    expect(await explain(['svc.spec.ports.targetPort'])).toContain('FIELD: targetPort <IntOrString>');
    expect(await explain(['svc.spec.ports'])).toMatch(/targetPort\t<IntOrString>\n {4}Port number/);
    expect(await explain(['httproute.spec.rules.matches.path.type'])).toMatch(/FIELD: type <string>\nENUM:\n {4}Exact/);
    expect(await explain(['secret.data'])).toContain('FIELD: data <map[string]string>');
  }, 120_000);

  it('apply of an HTTPRoute in a version not served: kubectl says no matches for the kind, not that the OpenAPI could not be had', async () => {
    const dir = tempDir('sy-kubectl-openapi-');
    const file = join(dir, 'v9.yaml');
    writeFileSync(file, 'apiVersion: gateway.networking.k8s.io/v9\nkind: HTTPRoute\nmetadata: { name: r, namespace: default }\nspec: {}\n');
    const r = await k.run(['apply', '-f', file]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('no matches for kind "HTTPRoute" in version "gateway.networking.k8s.io/v9"');
    expect(r.stderr).not.toContain('failed to download openapi');
  }, 60_000);

  it('client-side apply of a Service merges ports by the merge key the document declares: a port dropped from the manifest goes', async () => {
    const dir = tempDir('sy-kubectl-ports-');
    const svc = (ports: string) => {
      const file = join(dir, `svc-${Math.random().toString(36).slice(2)}.yaml`);
      writeFileSync(file, `apiVersion: v1\nkind: Service\nmetadata: { name: two-ports, namespace: default }\nspec: { ports: [${ports}] }\n`);
      return file;
    };
    expect((await k.run(['apply', '-f', svc('{ name: a, port: 80, targetPort: 8080 }, { name: b, port: 443, targetPort: https }')])).code).toBe(0);
    const second = await k.run(['apply', '-f', svc('{ name: a, port: 80, targetPort: 8080 }')]);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).not.toContain('warning');
    const live = await k.run(['get', 'service', 'two-ports', '-n', 'default', '-o', 'jsonpath={.spec.ports[*].port}']);
    expect(live.stdout).toBe('80');
  }, 60_000);

  it('a field the schema does not know is named in kubectl’s answer, for a Gateway API kind and a built-in one', async () => {
    const dir = tempDir('sy-kubectl-openapi-');
    const route = join(dir, 'foo.yaml');
    writeFileSync(route, 'apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: { name: r, namespace: default }\nspec: { foo: 1 }\n');
    const r = await k.run(['apply', '-f', route]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('unknown field "spec.foo"');
    const svc = join(dir, 'svc.yaml');
    writeFileSync(svc, 'apiVersion: v1\nkind: Service\nmetadata: { name: s, namespace: default }\nspec: { ports: [{ port: 80, targetPort: http, bogus: 1 }] }\n');
    const c = await k.run(['create', '-f', svc]);
    expect(c.code).not.toBe(0);
    expect(c.stderr).toMatch(/unknown field "spec\.ports\[0\]\.bogus"/);
  }, 60_000);
});
