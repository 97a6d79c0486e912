// The upcoming conformance cases of ExternalAuth (#5113: HTTP and gRPC authorization servers) and
// cookie session persistence (#4954: HTTPRoute and GRPCRoute, Session and Permanent cookies) as real
// traffic through nginx programmed by `switchyard nginx`: the runner of the corpus
// (test/support/conformance-runner.ts) on those cases of test/corpora/conformance/upcoming, counts
// printed. The rest of the upcoming cases are the control plane's (statuses) or need what nginx
// does not claim yet.
import { runConformanceCorpus } from '../support/conformance-runner';
import { NGINX_PLANE } from '../support/nginx-plane';

const FEATURES = ['HTTPRouteExternalAuth', 'CookieSessionPersistence'];

runConformanceCorpus({
  plane: NGINX_PLANE,
  upcoming: true,
  only: (c) => (c.features ?? []).some((f: string) => FEATURES.includes(f)),
  expectCounts: { requests: 8, dataPlane: 8 },
});
