// Every request expectation of the conformance corpus whose case's features we claim, evaluated by
// resolve() against the compiled table of the Gateway it is sent to.
import { describe, expect, it } from 'vitest';
import { checkRequest, conformanceDir, ConformanceStore, CONTROLLER, loadBase, loadCases, needsDataPlane, NOW, requestsOf, runCase, skipReason, type Outcome } from './conformance-requests-harness';
import { translate } from '../../src/core/translate';
import { readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { MESH_SKIP, bySkipReason } from '../support/conformance';

const cases = loadCases();
const base = cases.length ? loadBase() : [];
const indexFile = join(conformanceDir(), 'index.json');
const totals = existsSync(indexFile) ? JSON.parse(readFileSync(indexFile, 'utf8')).totals ?? {} : {};
/** the request expectations a route table can answer: all but those marked dataPlane */
const tableTotal = totals.requestExpectations - totals.dataPlaneRequestExpectations;
const mesh = loadCases(join(conformanceDir(), 'mesh'));

describe('conformance requests', () => {
  it('finds the corpus', () => {
    expect(cases.length, `no cases in ${conformanceDir()}`).toBeGreaterThan(0);
  });

  const outcomes: Outcome[] = [];
  const skipped: string[] = [];
  let skippedRequests = 0;
  let dataPlane = 0;
  for (const m of mesh) {
    const count = requestsOf(m).length;
    skipped.push(`${m.name} (${MESH_SKIP})`);
    skippedRequests += count;
  }
  for (const c of cases) {
    const all = requestsOf(c);
    const count = all.length;
    if (count === 0) continue;
    const why = skipReason(c);
    if (why) {
      skipped.push(`${c.name} (${why})`);
      skippedRequests += count;
      continue;
    }
    const tableOnly = all.filter((r) => !needsDataPlane(r)).length;
    dataPlane += count - tableOnly;
    if (tableOnly === 0) continue;
    it(c.name, () => {
      const got = runCase(c, base);
      outcomes.push(...got);
      const bad = got.filter((o) => o.failures.length);
      const report = bad.map((o) => `${o.check.where} ${JSON.stringify(o.check.request)}:\n  ${o.failures.join('\n  ')}\n  explanation: ${o.response?.explanation.join(' | ') ?? ''}`);
      expect(report, report.join('\n')).toEqual([]);
    });
  }

  it('the checker catches wrong expectations', () => {
    const c = cases.find((x) => x.name === 'HTTPRouteMatching');
    if (!c) return;
    const store = new ConformanceStore();
    for (const o of [...base, ...c.manifests]) store.apply(o);
    const world = store.world();
    const ref = { namespace: 'gateway-conformance-infra', name: 'same-namespace' };
    const t = translate(world, ref, { controllerName: CONTROLLER, now: NOW })!;
    const table = { ...t.table, unattached: t.unattached };
    const req = { protocol: 'http', host: '', path: '/v2/x', method: 'GET', port: 80 };
    const ok = checkRequest({ caseName: 't', where: 't', gateway: ref, request: req, expect: { statusCode: 200, backend: { namespace: ref.namespace, name: 'infra-backend-v2' } } }, table);
    expect(ok.failures).toEqual([]);
    const wrong = [
      { statusCode: 200, backend: { namespace: ref.namespace, name: 'infra-backend-v1' } },
      { statusCode: 404 },
      { connectionRejected: true },
      { statusCode: 200, requestHeaders: { 'x-missing': 'v' } },
      { statusCode: 200, rewrittenPath: '/elsewhere' },
      { statusCodes: [302], redirect: { scheme: 'http', path: '/v2/x' } },
      { statusCodeNotIn: [200, 408, 504] },
    ];
    for (const expectation of wrong) {
      expect(checkRequest({ caseName: 't', where: 't', gateway: ref, request: req, expect: expectation }, table).failures, JSON.stringify(expectation)).not.toEqual([]);
    }
  });

  it('prints the count', () => {
    const failed = outcomes.filter((o) => o.failures.length).length;
    const passed = outcomes.length - failed;
    console.log(`conformance requests through resolve: ${passed} passed, ${failed} failed of ${outcomes.length} run`
      + `${Number.isFinite(tableTotal) ? ` (of the ${tableTotal} not marked dataPlane)` : ''}; `
      + `${dataPlane} dataPlane requests left to the proxy tests; `
      + `skipped: ${skipped.length ? `${skippedRequests} requests, by reason: ${bySkipReason(skipped)}` : 'none'}`);
    expect(failed).toBe(0);
  });
});
