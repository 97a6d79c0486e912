// A new table version carries over the proxyless translations the table delta does not touch: each
// carried translation must equal the one made afresh from the new table, and a one-route change must
// leave the other hostnames' translations carried (the same objects, so not encoded or sent again).
import { describe, expect, it } from 'vitest';
import { runCase } from '../golden/runner';
import { proxylessListener, PROXYLESS_ENTRY_LISTS, type ProxylessListener } from '../../src/core/xds/proxyless';
import { carryOver, deltaScope } from '../../src/core/xds/carry-over';
import { tableParts } from '../../src/core/snapshot/table-parts';
import { snapshotDelta } from '../../src/core/snapshot/delta';
import type { CompiledTable } from '../../src/core/compile/types';

const route = (name: string, host: string, backend: string, weight = 1) => `---
apiVersion: gateway.networking.k8s.io/v1
kind: GRPCRoute
metadata: {name: ${name}, namespace: apps, creationTimestamp: "2026-11-01T00:00:00.000Z"}
spec:
  parentRefs: [{name: gw}]
  hostnames: [${host}]
  rules: [{matches: [{method: {service: echo.Echo}}], backendRefs: [{name: ${backend}, port: 50051, weight: ${weight}}]}]
`;
const service = (name: string, endpoints: number) => `---
apiVersion: v1
kind: Service
metadata: {name: ${name}, namespace: apps, annotations: {test/endpoints: "${endpoints}"}}
spec: {ports: [{port: 50051}]}
`;
const CASE = `kind: GoldenOptions
now: "2026-11-29T17:00:00.000Z"
---
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: switchyard}
spec: {controllerName: switchyard.dev/gateway-controller}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: apps}
spec:
  gatewayClassName: switchyard
  listeners: [{name: any, protocol: HTTP, port: 80}, {name: wide, protocol: HTTP, port: 80, hostname: "*.wide.example.com"}]
${service('a', 1)}${service('b', 1)}${service('c', 2)}${route('a', 'a.example.com', 'a')}${route('b', 'b.example.com', 'b')}${route('w', '"*.wide.example.com"', 'a')}---
kind: GoldenStep
description: route b moves to Service c; route d appears; Service a gains an endpoint
${route('b', 'b.example.com', 'c', 3)}${route('d', 'd.example.com', 'b')}${service('a', 2)}---
kind: GoldenStep
description: the wide listener goes
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: apps}
spec:
  gatewayClassName: switchyard
  listeners: [{name: any, protocol: HTTP, port: 80}]
`;
const NAMES = ['a.example.com:80', 'b.example.com:80', 'd.example.com:80', 'x.wide.example.com:80', 'nothing.example.com:81'];

function translate(table: CompiledTable): Map<string, ProxylessListener | null> {
  return new Map(NAMES.map((n) => [n, proxylessListener(table, n)]));
}

describe('carrying translations over a table delta', () => {
  it('carries exactly what the delta leaves alone, each equal to a fresh translation', async () => {
    const run = await runCase(CASE);
    const tables = run.compiled.map((m) => m.get('apps/gw')!);
    expect(tables.length).toBe(3);
    const carriedNames: string[][] = [];
    for (let i = 1; i < tables.length; i++) {
      const before = translate(tables[i - 1]);
      const d = snapshotDelta({ namespace: 'apps', name: 'gw' }, i, i + 1, 'h', tableParts(tables[i - 1]), tableParts(tables[i]));
      const carried = carryOver(before, deltaScope([JSON.parse(JSON.stringify(d))], PROXYLESS_ENTRY_LISTS));
      const fresh = translate(tables[i]);
      for (const [name, t] of carried) {
        expect(t, name).toBe(before.get(name));
        expect(t, name).toEqual(fresh.get(name));
      }
      carriedNames.push([...carried.keys()].sort());
    }
    // step 1: route a reads Service a, whose endpoints changed; b and d changed; the wide name reads
    // route w, which names Service a too; the name on a port without a listener stays without one
    expect(carriedNames[0]).toEqual(['nothing.example.com:81']);
    // step 2: a listener went: nothing is carried
    expect(carriedNames[1]).toEqual([]);
  });

  it('a one-route change leaves every other hostname carried', async () => {
    const run = await runCase(CASE.replace(/kind: GoldenStep\ndescription: route b[\s\S]*$/, `kind: GoldenStep\ndescription: route b moves to Service c\n${route('b', 'b.example.com', 'c')}`));
    const [t1, t2] = run.compiled.map((m) => m.get('apps/gw')!);
    const before = translate(t1);
    const d = snapshotDelta({ namespace: 'apps', name: 'gw' }, 1, 2, 'h', tableParts(t1), tableParts(t2));
    const carried = carryOver(before, deltaScope([JSON.parse(JSON.stringify(d))], PROXYLESS_ENTRY_LISTS));
    expect([...carried.keys()].sort()).toEqual(NAMES.filter((n) => n !== 'b.example.com:80').sort());
    for (const [name, t] of carried) expect(t, name).toEqual(proxylessListener(t2, name));
    expect(proxylessListener(t2, 'b.example.com:80')).not.toEqual(before.get('b.example.com:80'));
  });
});
