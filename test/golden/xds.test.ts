// xDS golden cases: test/golden/xds/<case>.in.yaml (manifests, as the golden cases write them, with
// `xdsListeners` in GoldenOptions: the listener names a proxyless gRPC client asks for) run through
// the production recompute (runner.ts), then each phase's compiled tables through the proxyless
// translation -> <case>.out.yaml. Every resource is encoded with the real Envoy v3 protos and checked
// against the protoc-gen-validate rules they declare. UPDATE_GOLDEN=1 regenerates; review the diff.
import { describe, it, expect } from 'vitest';
import { readdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Document } from 'yaml';
import { phasesOf, runCase } from './runner';
import { proxylessResources } from '../../src/core/xds/proxyless';
import { TYPE_URL, type ResourceKind, type XdsResources } from '../../src/core/xds/types';
import { decodeMessage, encodeMessage } from '../../src/adapters/grpc/xds-protos';
import { pgvViolations } from '../../src/adapters/grpc/pgv';

const dir = join(dirname(fileURLToPath(import.meta.url)), 'xds');
const update = process.env.UPDATE_GOLDEN === '1';
const cases = readdirSync(dir).filter((f) => f.endsWith('.in.yaml')).sort();
const KINDS: ResourceKind[] = ['listener', 'route', 'cluster', 'endpoint'];

function rendered(r: XdsResources): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of KINDS) out[`${k}s`] = [...r[k].values()];
  if (r.unsupported.length) out.unsupported = r.unsupported;
  return out;
}

/** Every resource encodes with the real protos, decodes to the same fields, and keeps Envoy's constraints. */
function checkEncodes(r: XdsResources): void {
  for (const k of KINDS) {
    for (const [name, res] of r[k]) {
      const bytes = encodeMessage(TYPE_URL[k], res);
      expect(pgvViolations(TYPE_URL[k], bytes), `${k} ${name}`).toEqual([]);
      expect(decodeMessage(TYPE_URL[k], bytes).name ?? decodeMessage(TYPE_URL[k], bytes).cluster_name).toBe(name);
    }
  }
}

describe('xDS golden cases', () => {
  it('holds cases', () => expect(cases.length).toBeGreaterThan(0));
  for (const file of cases) {
    const name = file.replace(/\.in\.yaml$/, '');
    it(name, async () => {
      const input = readFileSync(join(dir, file), 'utf8');
      const { options } = phasesOf(input);
      const listeners = (options.xdsListeners ?? []) as string[];
      const run = await runCase(input);
      const docs = run.compiled.map((tables, i) => {
        const gateways: Record<string, unknown> = {};
        for (const [gw, table] of tables) {
          const r = proxylessResources(table, listeners);
          checkEncodes(r);
          gateways[gw] = { proxyless: rendered(r) };
        }
        return new Document({ phase: i + 1, gateways }, { aliasDuplicateObjects: false }).toString({ lineWidth: 0 });
      });
      const text = docs.join('---\n');
      const outFile = join(dir, `${name}.out.yaml`);
      if (update) writeFileSync(outFile, text);
      expect(existsSync(outFile), `${outFile} is missing: run with UPDATE_GOLDEN=1`).toBe(true);
      expect(text).toBe(readFileSync(outFile, 'utf8'));
    });
  }
});

describe('the protoc-gen-validate checker', () => {
  it('finds what Envoy would refuse', () => {
    // a cluster without a name, a route configuration whose virtual host has no domains
    expect(pgvViolations(TYPE_URL.cluster, encodeMessage(TYPE_URL.cluster, { type: 'EDS' }))).toContain('Cluster.name: "" breaks string.min_len 1');
    const bad = encodeMessage(TYPE_URL.route, { name: 'r', virtual_hosts: [{ name: 'v', domains: [], routes: [{ match: { prefix: '/' }, route: { cluster: '' } }] }] });
    const v = pgvViolations(TYPE_URL.route, bad);
    expect(v.some((x) => x.includes('domains') && x.includes('min_items'))).toBe(true);
    expect(v.some((x) => x.includes('cluster') && x.includes('min_len'))).toBe(true);
  });
  it('refuses a field the message does not have', () => {
    expect(() => encodeMessage(TYPE_URL.cluster, { name: 'c', nmae: 'x' })).toThrow(/no field "nmae"/);
  });
});
