// The objects of one large Gateway's benchmarks (bench:gateway over HTTP, bench:phases in process):
// routes spread over 20 team namespaces, each with two rules, a header modifier and a backend among
// 100 Services, so that a one-route change there costs what it costs in either.
export const GW = 'gateway.networking.k8s.io/v1';

export const teamOf = (i: number) => `team-${i % 20}`;

/** bench:delivery's variant: its own name, an `app` label, and a 90/10 split onto another team's Service */
export interface RouteShape {
  name?: string;
  labelled?: boolean;
  split?: boolean;
}

/** Route `r-<i>` onto Gateway infra/<gateway>, its rules under `path`. */
export function httpRoute(i: number, gateway: string, path: string, shape: RouteShape = {}) {
  const name = shape.name ?? `r-${i}`;
  const backendRefs = shape.split
    ? [{ name: `svc-${i % 100}`, port: 80, weight: 90 }, { name: `svc-${(i + 1) % 100}`, namespace: teamOf(i + 1), port: 80, weight: 10 }]
    : [{ name: `svc-${i % 100}`, port: 80 }];
  return {
    apiVersion: GW, kind: 'HTTPRoute', metadata: { name, ...(shape.labelled ? { labels: { app: name } } : {}) },
    spec: {
      parentRefs: [{ name: gateway, namespace: 'infra' }],
      hostnames: [`h${i % 10}.example.com`],
      rules: [
        {
          matches: [{ path: { type: 'PathPrefix', value: path } }, { path: { type: 'PathPrefix', value: `${path}-alt` }, headers: [{ name: 'x-canary', value: 'yes' }] }],
          filters: [{ type: 'RequestHeaderModifier', requestHeaderModifier: { set: [{ name: 'x-route', value: `r-${i}` }] } }],
          backendRefs,
        },
        { matches: [{ path: { type: 'Exact', value: `${path}/health` }, method: 'GET' }], backendRefs: [{ name: `svc-${i % 100}`, port: 80 }] },
      ],
    },
  };
}
