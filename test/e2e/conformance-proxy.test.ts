// Every request expectation of the conformance corpus (test/corpora/conformance, not mesh/) sent as
// real traffic through the reference proxy: the runner of test/support/conformance-runner.ts, each
// Gateway a request names served by a `switchyard proxy` process of its own. The counts are printed.
import { expect, it } from 'vitest';
import { startProxyProcess } from '../support/proxy-process';
import { runConformanceCorpus, type DataPlane } from '../support/conformance-runner';

export const PROXY: DataPlane = {
  title: 'the reference proxy',
  short: 'the proxy',
  addressInUse: /EADDRINUSE/,
  async start(apiUrl, token, gw, offset) {
    const proc = await startProxyProcess(apiUrl, token, ['--gateway', gw, '--port-offset', String(offset), '--id', `corpus-${gw.replace('/', '-')}`], { ACCESS_LOG: 'off' });
    return { admin: proc.admin, output: proc.output, stop: () => proc.stop('SIGKILL') };
  },
};

const UPCOMING = process.env.CONFORMANCE_SUITE === 'upcoming';

runConformanceCorpus({
  plane: PROXY,
  upcoming: UPCOMING,
  expectCounts: UPCOMING ? { requests: 116, dataPlane: 26 } : { requests: 465, dataPlane: 58 },
  more: ({ planes, corpus, failed }) => {
    it.skipIf(UPCOMING)('the proxy of same-namespace counted what the corpus sent it: requests by listener, route and code, upstream latency, retries, upstream errors', async (ctx) => {
      const p = planes().get('gateway-conformance-infra/same-namespace');
      if (!p) return ctx.skip('no case reached same-namespace');
      const text = await (await fetch(`${p.admin}/metrics`)).text();
      const gw = 'gateway="gateway-conformance-infra/same-namespace"';
      expect(text).toMatch(new RegExp(`switchyard_proxy_requests_total\\{${gw},listener="http",route="HTTPRoute/gateway-conformance-infra/[^"]+",code="200"\\} [1-9]`));
      expect(text).toMatch(new RegExp(`switchyard_proxy_requests_total\\{${gw},listener="http",route="",code="404"\\} [1-9]`));
      expect(text).toMatch(new RegExp(`switchyard_proxy_upstream_duration_seconds_count\\{${gw},route="HTTPRoute/[^"]+"\\} [1-9]`));
      const ran = (name: string) => corpus.cases.some((c: any) => c.name === name) && !failed().some((f) => f.startsWith(name));
      if (ran('HTTPRouteRetry')) expect(text).toMatch(new RegExp(`switchyard_proxy_retries_total\\{${gw},route="HTTPRoute/[^"]+"\\} [1-9]`));
      if (ran('HTTPRouteRetryWithTimeouts')) expect(text).toMatch(new RegExp(`switchyard_proxy_upstream_errors_total\\{${gw},route="HTTPRoute/[^"]+",reason="timeout"\\} [1-9]`));
      if (ran('HTTPRouteRetryConnectionError')) expect(text).toMatch(new RegExp(`switchyard_proxy_upstream_errors_total\\{${gw},route="HTTPRoute/[^"]+",reason="unreachable"\\} [1-9]`));
    });
  },
});
