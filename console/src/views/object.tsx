// One object: its status (for a route, each parent's conditions), the controller's explanation, and
// its history: every version with actor and time, one version as it was, and a diff between any two
// (the same diff the command line's `history --diff` prints). Each is an address of its own.
import { stringify } from 'yaml';
import { useState } from 'preact/hooks';
import { objectDiff } from '../../../src/core/apply/diff';
import { api, objectPath, ROUTE_KINDS, type K8sObject } from '../api';
import { href, navigate } from '../router';
import { useFeed } from '../session';
import { Conditions, Loading, Problem, useLoad, when } from '../ui';

interface HistoryItem {
  version: number;
  type: string;
  actor: string;
  time: string;
}

interface Explanation {
  entries?: { reason: string; message: string; parentRefIndex?: number }[];
}

export function ObjectView({ kind, namespace, name, query }: { kind: string; namespace?: string; name: string; query: URLSearchParams }) {
  const path = objectPath(kind, namespace, name);
  const obj = useLoad(() => api<K8sObject>(path), [path]);
  const hist = useLoad(() => api<{ items: HistoryItem[] }>(`${path}/history`), [path]);
  const explain = useLoad(() => api<Explanation>(`${path}/explain`).catch(() => ({}) as Explanation), [path]);
  useFeed(
    (items) => {
      if (!items.some((i) => i.kind === kind && i.name === name && (i.namespace ?? undefined) === namespace)) return;
      obj.reload();
      hist.reload();
      explain.reload();
    },
    [path],
  );
  const from = query.get('from');
  const to = query.get('to');
  const version = query.get('version');

  return (
    <article aria-labelledby="o-title">
      <h1 id="o-title">
        {kind} {namespace ? `${namespace}/` : ''}
        {name}
      </h1>
      {obj.error != null && <Problem error={obj.error} />}
      {obj.data && <Status o={obj.data} explain={explain.data} />}
      <section aria-labelledby="o-hist">
        <h2 id="o-hist">History</h2>
        {hist.error != null && <Problem error={hist.error} />}
        {!hist.data ? <Loading what="the history" /> : <History kind={kind} namespace={namespace} name={name} items={hist.data.items} from={from} to={to} version={version} />}
      </section>
    </article>
  );
}

function Status({ o, explain }: { o: K8sObject; explain?: Explanation }) {
  const isRoute = ROUTE_KINDS.includes(o.kind);
  return (
    <section aria-labelledby="o-status">
      <h2 id="o-status">Status</h2>
      <p class="muted">
        Version {o.metadata.resourceVersion}, generation {o.metadata.generation}, created {when(o.metadata.creationTimestamp)}
      </p>
      {o.kind === 'Gateway' && (
        <p>
          <a href={href.gateway(o.metadata.namespace!, o.metadata.name)}>Listeners, proxies and attachments</a>
        </p>
      )}
      {isRoute &&
        ((o.status?.parents ?? []).length ? (
          (o.status.parents as { parentRef: { namespace?: string; name: string; sectionName?: string; kind?: string }; conditions: [] }[]).map((p, i) => {
            const gwNs = p.parentRef.namespace ?? o.metadata.namespace!;
            return (
              <div key={i} class="parent">
                <h3>
                  Parent{' '}
                  {(p.parentRef.kind ?? 'Gateway') === 'Gateway' ? <a href={href.gateway(gwNs, p.parentRef.name)}>{`${gwNs}/${p.parentRef.name}`}</a> : `${p.parentRef.kind} ${gwNs}/${p.parentRef.name}`}
                  {p.parentRef.sectionName ? ` (${p.parentRef.sectionName})` : ''}
                </h3>
                <Conditions items={p.conditions} />
              </div>
            );
          })
        ) : (
          <p class="muted">No parent has reported on this route.</p>
        ))}
      {!isRoute && o.status?.conditions && <Conditions items={o.status.conditions} />}
      {!!explain?.entries?.length && (
        <div>
          <h3>The controller's explanation</h3>
          <ul>
            {explain.entries.map((e, i) => (
              <li key={i}>
                <strong>{e.reason}:</strong> {e.message}
              </li>
            ))}
          </ul>
        </div>
      )}
    </section>
  );
}

function History({ kind, namespace, name, items, from, to, version }: { kind: string; namespace?: string; name: string; items: HistoryItem[]; from: string | null; to: string | null; version: string | null }) {
  const last = items.at(-1)?.version;
  const [a, setA] = useState(from ?? String(items.at(-2)?.version ?? items[0]?.version ?? ''));
  const [b, setB] = useState(to ?? String(last ?? ''));
  const compare = (e: Event) => {
    e.preventDefault();
    navigate(href.object(kind, namespace, name, { from: a, to: b }));
  };
  return (
    <div>
      <div class="table-wrap">
        <table class="history">
          <thead>
            <tr>
              <th scope="col">Version</th>
              <th scope="col">Change</th>
              <th scope="col">Actor</th>
              <th scope="col">Time</th>
            </tr>
          </thead>
          <tbody>
            {items.map((h) => (
              <tr key={h.version} aria-current={version === String(h.version) ? 'true' : undefined}>
                <th scope="row">
                  <a href={href.object(kind, namespace, name, { version: String(h.version) })}>{h.version}</a>
                </th>
                <td>{h.type}</td>
                <td>{h.actor}</td>
                <td>{when(h.time)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {items.length > 1 && (
        <form class="compare" onSubmit={compare}>
          <label for="h-from">Compare version</label>
          <select id="h-from" value={a} onChange={(e) => setA((e.target as HTMLSelectElement).value)}>
            {items.map((h) => (
              <option key={h.version}>{h.version}</option>
            ))}
          </select>
          <label for="h-to">with</label>
          <select id="h-to" value={b} onChange={(e) => setB((e.target as HTMLSelectElement).value)}>
            {items.map((h) => (
              <option key={h.version}>{h.version}</option>
            ))}
          </select>
          <button type="submit">Show the diff</button>
        </form>
      )}
      {from && to && <Diff kind={kind} namespace={namespace} name={name} from={from} to={to} />}
      {version && !(from && to) && <Version kind={kind} namespace={namespace} name={name} version={version} />}
    </div>
  );
}

const at = (kind: string, namespace: string | undefined, name: string, v: string) => api<K8sObject>(`${objectPath(kind, namespace, name)}/history/${encodeURIComponent(v)}`);

function Diff({ kind, namespace, name, from, to }: { kind: string; namespace?: string; name: string; from: string; to: string }) {
  const d = useLoad(async () => {
    const [x, y] = await Promise.all([at(kind, namespace, name, from), at(kind, namespace, name, to)]);
    const label = `${kind} ${namespace ? `${namespace}/` : ''}${name}`;
    const text = objectDiff(label, x, y);
    // the header names the two versions (the shared diff's own header speaks of an apply)
    return text.replace(/^--- .*\n\+\+\+ .*$/m, `--- ${label} version ${from}\n+++ ${label} version ${to}`);
  }, [kind, namespace, name, from, to]);
  if (d.error) return <Problem error={d.error} />;
  if (d.data === undefined) return <Loading what="the diff" />;
  return (
    <section aria-labelledby="h-diff">
      <h3 id="h-diff">
        Version {from} → version {to}
      </h3>
      {d.data ? (
        <pre class="diff" tabIndex={0}>
          {d.data.split('\n').map((line, i) => (
            <span key={i} class={line.startsWith('+') && !line.startsWith('+++') ? 'add' : line.startsWith('-') && !line.startsWith('---') ? 'del' : line.startsWith('@@') ? 'hunk' : ''}>
              {line}
              {'\n'}
            </span>
          ))}
        </pre>
      ) : (
        <p class="muted">No difference in labels, annotations or spec between these versions.</p>
      )}
    </section>
  );
}

function Version({ kind, namespace, name, version }: { kind: string; namespace?: string; name: string; version: string }) {
  const v = useLoad(() => at(kind, namespace, name, version), [kind, namespace, name, version]);
  if (v.error) return <Problem error={v.error} />;
  if (!v.data) return <Loading what={`version ${version}`} />;
  return (
    <section aria-labelledby="h-version">
      <h3 id="h-version">As it was at version {version}</h3>
      <pre class="yaml" tabIndex={0}>
        {stringify(v.data, { lineWidth: 0 })}
      </pre>
    </section>
  );
}
