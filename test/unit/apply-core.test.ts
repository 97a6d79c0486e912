// The pure parts of apply: reading manifests, naming the objects, deciding, and the dry-run diff.
import { describe, expect, it } from 'vitest';
import { joinYamlChunks, parseJsonManifest, parseYamlChunk, parseYamlManifest, manifestFormat, splitYamlDocuments } from '../../src/core/apply/manifest';
import { identify } from '../../src/core/apply/identify';
import { objectDiff } from '../../src/core/apply/diff';
import { planApply } from '../../src/core/apply/plan';
import { ApplyRejection } from '../../src/core/apply/types';
import { kindInfo } from '../../src/core/model/kinds';

function rejection(fn: () => unknown): ApplyRejection {
  try {
    fn();
  } catch (e) {
    if (e instanceof ApplyRejection) return e;
    throw e;
  }
  throw new Error('did not throw');
}

describe('manifest parsing', () => {
  it('reads multi-document YAML, skipping empty documents and expanding Lists, keeping document indexes', () => {
    const entries = parseYamlManifest('a: 1\n---\n# nothing\n---\nkind: List\nitems: [{b: 2}, {c: 3}]\n---\n');
    expect(entries).toEqual([
      { document: 0, object: { a: 1 } },
      { document: 2, item: 0, object: { b: 2 } },
      { document: 2, item: 1, object: { c: 3 } },
    ]);
  });

  // how long the refusal takes is measured by npm run bench:hostile
  it('allows a few aliases but refuses an alias bomb', () => {
    expect(parseYamlManifest('x: &a {k: v}\ny: *a\n')[0].object).toEqual({ x: { k: 'v' }, y: { k: 'v' } });
    let doc = 'a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n';
    for (let i = 1; i < 12; i++) doc += `a${i}: &a${i} [${Array(10).fill(`*a${i - 1}`).join(', ')}]\n`;
    expect(rejection(() => parseYamlManifest(doc)).message).toMatch(/alias/);
  });

  it('refuses tags outside the core schema, merge keys being plain keys', () => {
    expect(rejection(() => parseYamlManifest('a: !!js/regexp /x/\n')).status).toBe(400);
    expect(rejection(() => parseYamlManifest('a: !!set {x}\n')).status).toBe(400);
    expect(rejection(() => parseYamlManifest('a: !local x\n')).status).toBe(400);
    expect(parseYamlManifest('a: !!str 12\n')[0].object).toEqual({ a: '12' });
    expect(parseYamlManifest('b: &b {x: 1}\nc: {<<: *b}\n')[0].object).toEqual({ b: { x: 1 }, c: { '<<': { x: 1 } } });
  });

  it('keeps __proto__ as an own key', () => {
    const [e] = parseYamlManifest('__proto__: {admin: true}\n');
    const o = e.object as Record<string, unknown>;
    expect(Object.getPrototypeOf(o)).toBe(Object.prototype);
    expect(Object.keys(o)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>).admin).toBeUndefined();
  });

  it('names the document and line of a syntax error', () => {
    const e = rejection(() => parseYamlManifest('a: 1\n---\nb: [\n'));
    expect(e.message).toMatch(/document 1: .*line \d+/);
  });

  it('reads JSON {items}, Lists and single objects; refuses other shapes', () => {
    expect(parseJsonManifest('{"items":[{"kind":"A"},{"kind":"B"}]}').map((e) => e.document)).toEqual([0, 1]);
    expect(parseJsonManifest('{"kind":"ServiceList","items":[{"kind":"Service"}]}')).toHaveLength(1);
    expect(parseJsonManifest('{"kind":"Service"}')).toEqual([{ document: 0, object: { kind: 'Service' } }]);
    expect(rejection(() => parseJsonManifest('[1]')).status).toBe(400);
    expect(rejection(() => parseJsonManifest('{"items": 3}')).status).toBe(400);
    expect(rejection(() => parseJsonManifest('{')).status).toBe(400);
  });

  it('knows its media types', () => {
    expect(manifestFormat('application/yaml; charset=utf-8')).toBe('yaml');
    expect(manifestFormat(undefined)).toBe('yaml');
    expect(manifestFormat('application/json')).toBe('json');
    expect(manifestFormat('text/plain')).toBeNull();
  });
});

describe('parallel parsing: a stream cut at document markers parses as the whole', () => {
  const docs = [
    'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata:\n  script: |\n    echo one\n     ---\n    echo two\n',
    '# a comment only\n',
    '',
    'kind: List\nitems:\n- {kind: A}\n- {kind: B}\n',
    'x: "quoted --- text"\ny: [1, 2,\n  3]\n',
    'a: 1\n...\n',
    'anchors: &x {k: v}\nuse: *x\n',
    '--- {inline: doc}\n',
    'plain: text\n  continued\n',
  ];
  const whole = (t: string) => {
    try {
      return { entries: joinYamlChunks([parseYamlChunk(t)]) };
    } catch (e) {
      return { error: (e as Error).message };
    }
  };
  const split = (t: string, k: number) => {
    try {
      return { entries: joinYamlChunks(splitYamlDocuments(t, k).map((p) => parseYamlChunk(p.text, p.lineOffset))) };
    } catch (e) {
      return { error: (e as Error).message };
    }
  };

  it('gives the same documents, numbering and errors for every cut', () => {
    let seed = 7;
    const rnd = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    for (let round = 0; round < 200; round++) {
      const n = 1 + rnd(12);
      const parts = Array.from({ length: n }, () => docs[rnd(docs.length)]);
      if (round % 10 === 0) parts[rnd(n)] = 'bad: [unclosed\n';
      if (round % 10 === 5) parts[rnd(n)] = 'x: !custom 1\n';
      const text = (rnd(2) ? '---\n' : '') + parts.join('---\n');
      const expected = whole(text);
      for (let k = 2; k <= 5; k++) expect(split(text, k), `${JSON.stringify(text)} in ${k}`).toEqual(expected);
    }
  });

  it('names the line and column of a YAML error, in the message and in the issue', () => {
    const e = rejection(() => parseYamlManifest('a: 1\n---\nkind: Service\nmetadata:\n  name: x\n  name: y\n'));
    expect(e.status).toBe(400);
    expect(e.message).toBe('document 1: the YAML is not well-formed: Map keys must be unique at line 6, column 3');
    expect(e.issues).toEqual([{ document: 1, path: '', message: 'Map keys must be unique at line 6, column 3', line: 6, column: 3 }]);
  });

  it('cuts only at line-start markers and keeps line numbers', () => {
    const text = 'a: 1\n---\nb: 2\n---\nc: [\n';
    const pieces = splitYamlDocuments(text, 3);
    expect(pieces).toEqual([{ text: 'a: 1\n---\nb: 2\n', lineOffset: 0 }, { text: '---\nc: [\n', lineOffset: 3 }]);
    expect(pieces.map((p) => p.text).join('')).toBe(text);
    expect(split(text, 3)).toEqual(whole(text));
    expect(splitYamlDocuments('%YAML 1.2\n---\na: 1\n---\nb: 2\n', 4)).toHaveLength(1);
  });
});

describe('identify', () => {
  const svc = (name: unknown, ns?: unknown) => ({ apiVersion: 'v1', kind: 'Service', metadata: { name, ...(ns !== undefined ? { namespace: ns } : {}) } });

  it('names each object, taking the default namespace for namespaced kinds only', () => {
    const r = identify([{ document: 0, object: svc('a') }, { document: 1, object: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'n' } } }], 'team');
    expect(r.issues).toEqual([]);
    expect(r.entries.map((e) => e.stream)).toEqual(['Service/team/a', 'Namespace//n']);
  });

  it('reports unknown kinds, bad apiVersions, missing names and namespaces, and duplicates', () => {
    const r = identify([
      { document: 0, object: { apiVersion: 'x/v1', kind: 'Widget', metadata: { name: 'w' } } },
      { document: 1, object: { apiVersion: 'v2', kind: 'Service', metadata: { name: 's' } } },
      { document: 2, object: svc(undefined, 'a') },
      { document: 3, object: svc('nons') },
      { document: 4, object: svc('d', 'a') },
      { document: 5, item: 2, object: svc('d', 'a') },
      { document: 6, object: [1, 2] },
      { document: 7, object: { apiVersion: 'gateway.networking.k8s.io/v1', kind: 'GatewayClass', metadata: { name: 'c', namespace: 'x' } } },
      { document: 8, object: { apiVersion: 'toString', kind: 'Service', metadata: { name: 's', namespace: 'a' } } },
    ], undefined);
    expect(r.issues.map((i) => [i.document, i.path])).toEqual([
      [0, 'kind'], [1, 'apiVersion'], [2, 'metadata.name'], [3, 'metadata.namespace'], [5, 'metadata.name'], [6, ''], [7, 'metadata.namespace'], [8, 'apiVersion'],
    ]);
    expect(r.issues[0].message).toContain('unknown kind "Widget"');
    expect(r.issues[4]).toMatchObject({ item: 2, kind: 'Service', namespace: 'a', name: 'd' });
    expect(r.issues[4].message).toContain('document 4');
    expect(r.entries.map((e) => e.name)).toEqual(['d']);
  });
});

describe('plan and diff', () => {
  const info = kindInfo('Service')!;
  const stored = {
    apiVersion: 'v1', kind: 'Service',
    metadata: { name: 's', namespace: 'a', uid: 'u', resourceVersion: '3', generation: 2, creationTimestamp: '2026-01-01T00:00:00.000Z', labels: { a: '1' } },
    spec: { ports: [{ port: 80, targetPort: 80, protocol: 'TCP' }] },
  };
  const row = { stream: 'Service/a/s', kind: 'Service', namespace: 'a', name: 's', version: 3, deleted: false, object: stored, position: 10 };

  it('decides created, configured, unchanged and pruned', () => {
    const same = { apiVersion: 'v1', kind: 'Service', metadata: { name: 's', namespace: 'a', labels: { a: '1' } }, spec: stored.spec };
    const changed = { ...same, spec: { ports: [{ port: 81, targetPort: 81, protocol: 'TCP' }] } };
    const fresh = { ...same, metadata: { name: 'n', namespace: 'a' } };
    const mk = (object: any, name = 's') => ({ document: 0, info, stream: `Service/a/${name}`, namespace: 'a', name, object });
    const current = new Map([['Service/a/s', row]]);
    const now = '2026-02-01T00:00:00.000Z';
    const uid = () => 'new-uid';
    expect(planApply({ entries: [mk(same)], current, prune: [], now, newUid: uid })[0]).toMatchObject({ action: 'unchanged', resourceVersion: '3' });
    const c = planApply({ entries: [mk(changed)], current, prune: [], now, newUid: uid })[0];
    expect(c).toMatchObject({ action: 'configured', resourceVersion: '4' });
    expect(c.after!.metadata.generation).toBe(3);
    expect(planApply({ entries: [mk(fresh, 'n')], current, prune: [], now, newUid: uid })[0]).toMatchObject({ action: 'created', resourceVersion: '1' });
    const p = planApply({ entries: [], current, prune: [{ info, row }], now, newUid: uid })[0];
    expect(p).toMatchObject({ action: 'pruned', resourceVersion: '4', readVersion: 3 });
    expect(p.decision!.type).toBe('Deleted');
  });

  it('renders a unified diff of labels, annotations and content', () => {
    const after = { ...stored, metadata: { ...stored.metadata, labels: { a: '2' } }, spec: { ports: [{ port: 80, targetPort: 8080, protocol: 'TCP' }] } };
    const d = objectDiff('Service a/s', stored, after);
    expect(d).toBe([
      '--- Service a/s (resourceVersion 3)',
      '+++ Service a/s (applied)',
      '@@ -1,8 +1,8 @@',
      ' metadata:',
      '   labels:',
      '-    a: "1"',
      '+    a: "2"',
      ' spec:',
      '   ports:',
      '     - port: 80',
      '       protocol: TCP',
      '-      targetPort: 80',
      '+      targetPort: 8080',
      '',
    ].join('\n'));
    expect(objectDiff('x', stored, stored)).toBe('');
    expect(objectDiff('x', undefined, stored).split('\n').slice(0, 3)).toEqual(['--- /dev/null', '+++ x (applied)', '@@ -0,0 +1,8 @@']);
    expect(objectDiff('x', stored, undefined)).toContain('@@ -1,8 +0,0 @@');
  });
});
