// The table of list and map semantics against the project's own OpenAPI schemas: wherever both
// speak of a list the engines merge (one not inside an atomic list), they agree, so that what
// validation checks for uniqueness is what server-side apply keys items by.
import { describe, expect, it } from 'vitest';
import { KINDS } from '../../../src/core/model/kinds';
import { structuralNode, type SNode } from '../../../src/core/validate/structural';
import { markersOf, schemaOf } from '../../../src/core/kube-patch/schema';
import type { FieldSchema } from '../../../src/core/kube-patch/schema';

function listsOf(node: SNode | undefined, path: string, out: Map<string, string>, seen = new Set<SNode>()): Map<string, string> {
  if (!node || seen.has(node)) return out;
  seen.add(node);
  if (node.listType) out.set(path, `${node.listType} ${JSON.stringify(node.mapKeys ?? [])}`);
  if (node.props) for (const [k, c] of node.props) listsOf(c, path ? `${path}.${k}` : k, out, new Set(seen));
  // the items of an atomic list are owned with the list: their markers do not matter to a merge
  if (node.items && node.listType) listsOf(node.items, `${path}[]`, out, new Set(seen));
  return out;
}

function tableLists(s: FieldSchema, path: string, out: Map<string, string>): Map<string, string> {
  if (s.list && s.list.type !== 'atomic') out.set(path, `${s.list.type} ${JSON.stringify(s.list.keys ?? [])}`);
  for (const [k, c] of Object.entries(s.fields ?? {})) tableLists(c, path ? `${path}.${k}` : k, out);
  if (s.list?.items) tableLists(s.list.items, `${path}[]`, out);
  return out;
}

describe('list semantics', () => {
  for (const info of KINDS) {
    for (const [apiVersion, schemaName] of Object.entries(info.versions)) {
      it(`${info.kind} ${apiVersion}: the lists the table merges are the lists the schema declares`, () => {
        const declared = listsOf(structuralNode(schemaName), '', new Map());
        const table = tableLists(schemaOf(info.kind), '', new Map());
        for (const [path, semantics] of table) {
          if (path.startsWith('metadata.')) continue; // ObjectMeta is not checked by our schemas
          expect(declared.get(path), `${info.kind} ${path}`).toBe(semantics);
        }
        // a map or set list our schema declares at the top of spec is in the table too
        for (const [path, semantics] of declared) {
          if (/^spec\.[^.[\]]+$/.test(path)) expect(table.get(path), `${info.kind} ${path}`).toBe(semantics);
        }
      });
    }
  }
});

describe('markersOf', () => {
  it('gives kubectl the patch strategy of Service ports, with the list-map keys', () => {
    expect(markersOf('Service').find((m) => m.path === 'spec.ports')?.extensions).toEqual({
      'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['port', 'protocol'],
      'x-kubernetes-patch-strategy': 'merge', 'x-kubernetes-patch-merge-key': 'port',
    });
  });
  it('gives a CRD kind list markers only, never a patch strategy', () => {
    const gw = markersOf('Gateway');
    expect(gw.find((m) => m.path === 'spec.listeners')?.extensions).toEqual({ 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'] });
    expect(gw.some((m) => 'x-kubernetes-patch-strategy' in m.extensions)).toBe(false);
    expect(markersOf('HTTPRoute').map((m) => m.path)).toEqual(['metadata.finalizers', 'metadata.ownerReferences']);
  });
});
