// Every request expectation of the conformance corpus whose case's features we claim, evaluated by
// resolve() against the compiled table of the Gateway it is sent to.
import { describe, expect, it } from 'vitest';
import { conformanceDir, loadBase, loadCases, runCase, skipReason, type Outcome } from './conformance-requests-harness';

const cases = loadCases();
const base = cases.length ? loadBase() : [];

describe('conformance requests', () => {
  it('finds the corpus', () => {
    expect(cases.length, `no cases in ${conformanceDir()}`).toBeGreaterThan(0);
  });

  const outcomes: Outcome[] = [];
  const skipped: string[] = [];
  let skippedRequests = 0;
  for (const c of cases) {
    const count = (c.expect.requests?.length ?? 0) + (c.steps ?? []).reduce((n, s) => n + (s.expect.requests?.length ?? 0), 0);
    if (count === 0) continue;
    const why = skipReason(c);
    if (why) {
      skipped.push(`${c.name} (${count}: ${why})`);
      skippedRequests += count;
      continue;
    }
    it(c.name, () => {
      const got = runCase(c, base);
      outcomes.push(...got);
      const bad = got.filter((o) => o.failures.length);
      const report = bad.map((o) => `${o.check.where} ${JSON.stringify(o.check.request)}:\n  ${o.failures.join('\n  ')}\n  explanation: ${o.response?.explanation.join(' | ') ?? ''}`);
      expect(report, report.join('\n')).toEqual([]);
    });
  }

  it('prints the count', () => {
    const failed = outcomes.filter((o) => o.failures.length).length;
    const passed = outcomes.length - failed;
    console.log(`conformance requests: ${passed} passed, ${failed} failed of ${outcomes.length}; skipped: ${skipped.length ? `${skippedRequests} requests in ${skipped.join('; ')}` : 'none'}`);
    expect(failed).toBe(0);
  });
});
