// Every Gateway the token may read, with what a platform team checks first: accepted, programmed, how
// many routes each listener carries. No Gateway at all: how to start.
import { listAll, type K8sObject } from '../api';
import { href } from '../router';
import { useFeed } from '../session';
import { Loading, Problem, useLoad } from '../ui';

export function Quickstart() {
  return (
    <section class="empty" aria-labelledby="qs">
      <h2 id="qs">No Gateway yet</h2>
      <p>The quickstart puts a Gateway, two routes and their Services on this server. From the project's folder:</p>
      <pre>
        <code>{`export SWITCHYARD_TOKEN=$(cat .switchyard/admin-token)
npx switchyard apply -f examples/quickstart --wait 30s`}</code>
      </pre>
      <p>
        The Gateway <code>shop/shop-gateway</code> then appears here, live. Getting started (<code>docs/getting-started.md</code>) says more.
      </p>
    </section>
  );
}

const cond = (o: K8sObject, type: string) => (o.status?.conditions ?? []).find((c: { type: string }) => c.type === type);

export function GatewaysView() {
  const gws = useLoad(() => listAll('Gateway'), []);
  useFeed(
    (items) => {
      if (items.some((i) => i.kind === 'Gateway')) gws.reload();
    },
    [gws.reload],
  );
  if (gws.error && !gws.data) return <Problem error={gws.error} />;
  if (!gws.data) return <Loading what="the Gateways" />;
  if (!gws.data.length) return <Quickstart />;
  return (
    <section aria-labelledby="gws">
      <h1 id="gws">Gateways</h1>
      <div class="table-wrap">
        <table class="gateways cards">
          <thead>
            <tr>
              <th scope="col">Gateway</th>
              <th scope="col">Class</th>
              <th scope="col">Listeners</th>
              <th scope="col">Attached routes</th>
              <th scope="col">Accepted</th>
              <th scope="col">Programmed</th>
              <th scope="col">Addresses</th>
            </tr>
          </thead>
          <tbody>
            {gws.data.map((g) => {
              const attached = (g.status?.listeners ?? []).reduce((n: number, l: { attachedRoutes?: number }) => n + (l.attachedRoutes ?? 0), 0);
              const acc = cond(g, 'Accepted');
              const prog = cond(g, 'Programmed');
              return (
                <tr key={`${g.metadata.namespace}/${g.metadata.name}`}>
                  <th data-label="Gateway" scope="row">
                    <a href={href.gateway(g.metadata.namespace!, g.metadata.name)}>
                      {g.metadata.namespace}/{g.metadata.name}
                    </a>
                  </th>
                  <td data-label="Class">{g.spec?.gatewayClassName}</td>
                  <td data-label="Listeners">{(g.spec?.listeners ?? []).map((l: { name: string; protocol: string; port: number }) => `${l.name} ${l.protocol}:${l.port}`).join(', ')}</td>
                  <td data-label="Attached routes">{attached}</td>
                  <td data-label="Accepted" class={acc?.status === 'True' ? 'ok' : 'bad'} title={acc?.message}>
                    {acc ? `${acc.status} (${acc.reason})` : 'not reported'}
                  </td>
                  <td data-label="Programmed" class={prog?.status === 'True' ? 'ok' : 'bad'} title={prog?.message}>
                    {prog ? `${prog.status} (${prog.reason})` : 'not reported'}
                  </td>
                  <td data-label="Addresses">{(g.status?.addresses ?? g.spec?.addresses ?? []).map((a: { value: string }) => a.value).join(', ') || '—'}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      {gws.error != null && <Problem error={gws.error} />}
    </section>
  );
}
