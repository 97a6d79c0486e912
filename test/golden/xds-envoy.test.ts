// Envoy golden cases: test/golden/xds-envoy/<case>.in.yaml (Gateway API manifests, as the golden
// cases write them) run through the production recompute (runner.ts), then each phase's compiled
// tables, with the data of the Secrets they name (from the manifests, as a snapshot carries it to
// the Gateway's proxies), through the Envoy translation -> <case>.out.yaml. Every resource is
// encoded with the real Envoy v3 protos, decoded back to the same fields, and checked against the
// protoc-gen-validate rules those protos declare. UPDATE_GOLDEN=1 regenerates; review the diff.
import { describe, it, expect } from 'vitest';
import { readdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Document } from 'yaml';
import { phasesOf, runCase } from './runner';
import { envoyResources, type EnvoyResources } from '../../src/core/xds/envoy';
import { secretRefsOf } from '../../src/core/snapshot/format';
import { TYPE_URL, type ResourceKind } from '../../src/core/xds/types';
import type { SnapshotSecret } from '../../src/core/compile';
import { decodeMessage, encodeMessage } from '../../src/adapters/grpc/xds-protos';
import { pgvViolations } from '../../src/adapters/grpc/pgv';

const dir = join(dirname(fileURLToPath(import.meta.url)), 'xds-envoy');
const update = process.env.UPDATE_GOLDEN === '1';
const cases = readdirSync(dir).filter((f) => f.endsWith('.in.yaml')).sort();
const KINDS: ResourceKind[] = ['listener', 'route', 'cluster', 'endpoint', 'secret'];

function rendered(r: EnvoyResources): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of KINDS) out[`${k}s`] = [...r[k].values()];
  if (r.unsupported.length) out.unsupported = r.unsupported;
  return out;
}

/** Every resource encodes with the real protos, keeps Envoy's constraints, and comes back the same. */
export function checkEncodes(r: EnvoyResources): void {
  for (const k of KINDS) {
    for (const [name, res] of r[k]) {
      const bytes = encodeMessage(TYPE_URL[k], res);
      expect(pgvViolations(TYPE_URL[k], bytes), `${k} ${name}`).toEqual([]);
      const back = decodeMessage(TYPE_URL[k], bytes);
      expect(back.name ?? back.cluster_name, `${k} ${name}`).toBe(name);
      // the same bytes again: nothing was dropped or changed on the way in
      expect(Buffer.from(encodeMessage(TYPE_URL[k], res)).equals(Buffer.from(bytes))).toBe(true);
    }
  }
}

/** Every cluster a listener or route names is among the clusters, and every EDS name has its endpoints. */
export function checkClosed(r: EnvoyResources): void {
  const named = new Set<string>();
  const walk = (v: unknown, key = ''): void => {
    if (Array.isArray(v)) return v.forEach((x) => walk(x, key));
    if (v && typeof v === 'object') {
      const o = v as Record<string, unknown>;
      if (key === 'clusters' || key === 'weighted_clusters') for (const c of (o.clusters as { name: string }[] | undefined) ?? []) named.add(c.name);
      for (const [k, x] of Object.entries(o)) {
        if ((k === 'cluster') && typeof x === 'string') named.add(x);
        // an ext_authz gRPC server's cluster
        if (k === 'cluster_name' && key === 'envoy_grpc' && typeof x === 'string') named.add(x);
        walk(x, k);
      }
    }
  };
  for (const k of ['listener', 'route'] as const) for (const res of r[k].values()) walk(res);
  for (const c of named) expect(r.cluster.has(c), `cluster ${c} is named but not sent`).toBe(true);
  for (const c of r.cluster.values()) expect(r.endpoint.has((c.eds_cluster_config as { service_name: string }).service_name)).toBe(true);
  // every route configuration a listener names is sent
  const rds = JSON.stringify([...r.listener.values()]).match(/"route_config_name":"[^"]+"/g) ?? [];
  for (const m of rds) expect(r.route.has(m.slice(21, -1)), m).toBe(true);
}

/** The Secret data a snapshot carries for the table: the manifests' Secrets the table names. */
function secretsFor(input: string, gatewayNs: string, table: Parameters<typeof secretRefsOf>[0]): SnapshotSecret[] {
  const docs = phasesOf(input).phases.flatMap((p) => p.docs).filter((d) => d.kind === 'Secret');
  return secretRefsOf(table, gatewayNs).flatMap((ref) => {
    const d = docs.findLast((x) => (x.metadata.namespace ?? 'default') === ref.namespace && x.metadata.name === ref.name);
    if (!d) return [];
    const data: Record<string, string> = { ...(d.data as Record<string, string> | undefined) };
    for (const [k, v] of Object.entries((d.stringData ?? {}) as Record<string, string>)) data[k] = Buffer.from(v).toString('base64');
    return [{ namespace: ref.namespace, name: ref.name, type: d.type as string, data }];
  });
}

describe('Envoy xDS golden cases', () => {
  it('holds cases', () => expect(cases.length).toBeGreaterThan(0));
  for (const file of cases) {
    const name = file.replace(/\.in\.yaml$/, '');
    it(name, async () => {
      const input = readFileSync(join(dir, file), 'utf8');
      const run = await runCase(input);
      const docs = run.compiled.map((tables, i) => {
        const gateways: Record<string, unknown> = {};
        for (const [gw, table] of tables) {
          const r = envoyResources(table, secretsFor(input, gw.split('/')[0], table));
          checkEncodes(r);
          checkClosed(r);
          gateways[gw] = { envoy: rendered(r) };
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
