// Linkerd golden cases: test/golden/linkerd/<case>.in.yaml holds `objects` (a world, as the compile
// tests write it) and `queries` (a client namespace and the targets its proxies ask about); each
// target's DestinationProfile and OutboundPolicy, made from that namespace's mesh table, are
// written to <case>.out.yaml. Every message is checked against our protos field by field (a field
// the proto does not have fails, where protobufjs would drop it) and encoded. UPDATE_GOLDEN=1
// regenerates; review the diff.
import { describe, expect, it } from 'vitest';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import protobuf from 'protobufjs';
import { Document, parse } from 'yaml';
import descriptor from '../../src/generated/linkerd/descriptor.json';
import { compileMesh } from '../../src/core/mesh';
import { parseDestination } from '../../src/core/linkerd/destination-path';
import { destinationProfile } from '../../src/core/linkerd/profile';
import { outboundPolicy } from '../../src/core/linkerd/outbound-policy';
import { worldOf } from '../support/compile-world';

const dir = join(dirname(fileURLToPath(import.meta.url)), 'linkerd');
const update = process.env.UPDATE_GOLDEN === '1';
const cases = readdirSync(dir).filter((f) => f.endsWith('.in.yaml')).sort();
const root = protobuf.Root.fromJSON(descriptor as protobuf.INamespace);
const DOMAIN = 'cluster.local';

/** The fields of `obj` that `type` lacks, by path. */
function unknownFields(type: protobuf.Type, obj: unknown, path = ''): string[] {
  if (obj === null || typeof obj !== 'object') return [];
  const out: string[] = [];
  for (const [k, v] of Object.entries(obj)) {
    const f = type.fields[k];
    if (!f) {
      out.push(`${path}${k} (not a field of ${type.fullName})`);
      continue;
    }
    const rt = f.resolve().resolvedType;
    if (!(rt instanceof protobuf.Type) || v === null || v === undefined) continue;
    if (f.map) for (const [mk, mv] of Object.entries(v)) out.push(...unknownFields(rt, mv, `${path}${k}.${mk}.`));
    else if (f.repeated) (v as unknown[]).forEach((x, i) => out.push(...unknownFields(rt, x, `${path}${k}[${i}].`)));
    else out.push(...unknownFields(rt, v, `${path}${k}.`));
  }
  return out;
}

function checked(typeName: string, msg: Record<string, unknown> | undefined): void {
  if (!msg) return;
  const type = root.lookupType(typeName);
  expect(unknownFields(type, msg), typeName).toEqual([]);
  expect(type.encode(type.fromObject(msg)).finish().length).toBeGreaterThan(0);
}

describe('Linkerd golden cases', () => {
  it('holds cases', () => expect(cases.length).toBeGreaterThan(0));
  for (const file of cases) {
    const name = file.replace(/\.in\.yaml$/, '');
    it(name, () => {
      const input = parse(readFileSync(join(dir, file), 'utf8')) as { objects: unknown[]; queries: { client: string; targets: string[] }[] };
      const world = worldOf(input.objects);
      const queries = input.queries.map((q) => {
        const table = compileMesh(world, q.client, { clusterDomain: DOMAIN });
        const answers: Record<string, unknown> = {};
        for (const t of q.targets) {
          const target = parseDestination(t, DOMAIN);
          const profile = destinationProfile(table, target, { clusterDomain: DOMAIN });
          const policy = outboundPolicy(table, target, { clusterDomain: DOMAIN });
          checked('io.linkerd.proxy.destination.DestinationProfile', profile);
          checked('io.linkerd.proxy.outbound.OutboundPolicy', policy);
          answers[t] = { profile, policy: policy ?? 'NOT_FOUND' };
        }
        return { client: q.client, answers };
      });
      const text = new Document(queries, { aliasDuplicateObjects: false }).toString({ lineWidth: 0 });
      const outFile = join(dir, `${name}.out.yaml`);
      if (update) writeFileSync(outFile, text);
      expect(existsSync(outFile), `${outFile} (run with UPDATE_GOLDEN=1)`).toBe(true);
      expect(text).toBe(readFileSync(outFile, 'utf8'));
    });
  }
});
