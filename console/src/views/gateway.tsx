// One Gateway: its listeners, conditions and addresses, the proxies serving it and whether each is in
// sync, and the attachments: every route that names it, attached or refused, why, and what would fix
// a refusal. Changes arrive from the live stream; the proxies' states are asked for again every few
// seconds, as they are reports rather than changes of objects.
import { useCallback, useEffect, useMemo, useState } from 'preact/hooks';
import { api, ApiError, canI, listAll, objectPath, ROUTE_KINDS, type K8sObject } from '../api';
import { admittedIn, attachmentsOf, namesGateway, withNamespace, type Attachment } from '../attachments';
import { href } from '../router';
import { useFeed } from '../session';
import { Conditions, Loading, Problem, useLoad, when } from '../ui';
import { VirtualList } from '../virtual-list';

const PROXY_POLL_MS = 5000;
const ROW = 64;

interface Listener {
  name: string;
  port: number;
  protocol: string;
  hostname?: string;
  tls?: { mode?: string; certificateRefs?: { namespace?: string; name: string }[] };
  allowedRoutes?: { namespaces?: { from?: string }; kinds?: { kind: string }[] };
}

interface Proxy {
  id: string;
  version?: number | null;
  state?: string;
  lastSeen?: string;
  error?: string;
  /** an xDS node's acknowledgements, per resource type */
  xds?: { variant: string; types: Record<string, { acked?: string; nacked?: { version: string; error: string } }> };
}

/** What serves the Gateway: an xDS node (Envoy, proxyless gRPC), an nginx beside its runner, or a snapshot proxy. */
function proxyKind(p: Proxy): string {
  if (p.xds) return `xDS (${p.xds.variant === 'delta' ? 'incremental' : 'state of the world'})`;
  if (/nginx/i.test(p.id)) return 'nginx';
  return 'snapshot proxy';
}

const keyOf = (o: { kind: string; metadata: { namespace?: string; name: string } }) => `${o.kind}/${o.metadata.namespace}/${o.metadata.name}`;

/**
 * Every route the token may read, shown as the pages arrive: a Gateway with thousands of routes is
 * drawn from its first page on, and the view says it is still reading until the last one is in.
 * A kind the token may not list is left out (the API would answer 403 for it).
 */
function useRoutes(deps: unknown[]): { data: Map<string, K8sObject>; complete: boolean; error?: unknown; set: (f: (m: Map<string, K8sObject>) => Map<string, K8sObject>) => void } {
  const [state, setState] = useState<{ data: Map<string, K8sObject>; complete: boolean; error?: unknown }>({ data: new Map(), complete: false });
  useEffect(() => {
    let live = true;
    setState({ data: new Map(), complete: false });
    const add = (items: K8sObject[]) =>
      live &&
      setState((s) => {
        const m = new Map(s.data);
        // a live change that came first is newer than the page's copy
        for (const r of items) if (!m.has(keyOf(r))) m.set(keyOf(r), r);
        return { ...s, data: m };
      });
    Promise.all(ROUTE_KINDS.map((k) => listAll(k, add).catch((e) => (e instanceof ApiError && e.status === 403 ? [] : Promise.reject(e))))).then(
      () => live && setState((s) => ({ ...s, complete: true })),
      (error) => live && setState((s) => ({ ...s, complete: true, error })),
    );
    return () => {
      live = false;
    };
  }, deps);
  const set = useCallback((f: (m: Map<string, K8sObject>) => Map<string, K8sObject>) => setState((s) => ({ ...s, data: f(s.data) })), []);
  return { ...state, set };
}

export function GatewayView({ namespace, name }: { namespace: string; name: string }) {
  const gw = useLoad(() => api<K8sObject>(objectPath('Gateway', namespace, name)), [namespace, name]);
  const routes = useRoutes([namespace, name]);
  // what is not the attachments waits for the routes to be read: on a large Gateway the list is what
  // a person waits for, and the server answers it sooner without the other questions in between
  const proxies = useLoad(
    () => (routes.complete ? api<{ snapshotVersion?: number; items: Proxy[] }>(`${objectPath('Gateway', namespace, name)}/proxies`) : Promise.resolve(undefined)),
    [namespace, name, routes.complete],
  );
  const [mayWrite, setMayWrite] = useState(false);
  const [actionError, setActionError] = useState<unknown>();
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    if (!routes.complete) return;
    canI('patch', 'Gateway', namespace, name).then(setMayWrite, () => setMayWrite(false));
    const t = setInterval(proxies.reload, PROXY_POLL_MS);
    return () => clearInterval(t);
  }, [namespace, name, routes.complete]);

  useFeed(
    (items) => {
      for (const it of items) {
        if (it.kind === 'Gateway' && it.namespace === namespace && it.name === name) {
          if (it.type === 'Deleted') gw.reload();
          // a spec change keeps the status shown until the controller's StatusChanged follows
          else if (it.object) gw.set((old) => ({ ...it.object!, status: it.object!.status ?? old?.status }));
        } else if (ROUTE_KINDS.includes(it.kind)) {
          routes.set((m) => {
            const k = `${it.kind}/${it.namespace}/${it.name}`;
            const prev = m.get(k);
            // only routes that name (or named) this Gateway change the view
            if (!prev && !(it.object && namesGateway(it.object, { namespace, name }).length)) return m;
            const next = new Map(m);
            if (it.type === 'Deleted') next.delete(k);
            else if (it.object) next.set(k, { ...it.object, status: it.object.status ?? prev?.status });
            return next;
          });
        }
      }
    },
    [namespace, name],
  );

  const rows = useMemo(() => (gw.data ? attachmentsOf(gw.data, routes.data.values()) : []), [gw.data, routes.data]);

  if (gw.error && !gw.data) return <Problem error={gw.error} />;
  if (!gw.data) return <Loading what={`Gateway ${namespace}/${name}`} />;
  const g = gw.data;
  const listeners: Listener[] = g.spec?.listeners ?? [];
  const lstatus = new Map<string, { attachedRoutes?: number; conditions?: [] }>((g.status?.listeners ?? []).map((l: { name: string }) => [l.name, l]));

  const changeNamespace = async (listener: string, ns: string, admit: boolean) => {
    setBusy(true);
    setActionError(undefined);
    try {
      const updated = await api<K8sObject>(objectPath('Gateway', namespace, name), {
        method: 'PATCH',
        headers: { 'Content-Type': 'application/merge-patch+json', 'If-Match': `"${g.metadata.resourceVersion}"` },
        body: { spec: { listeners: withNamespace(g, listener, ns, admit) } },
      });
      // the live stream may have brought this version, and the controller's status after it, first:
      // the write's answer carries the status from before the change, so it never replaces a newer view
      gw.set((old) => (old && Number(old.metadata.resourceVersion) >= Number(updated.metadata.resourceVersion) ? old : { ...updated, status: old?.status ?? updated.status }));
    } catch (e) {
      setActionError(e);
    } finally {
      setBusy(false);
    }
  };

  return (
    <article aria-labelledby="gw-title">
      <h1 id="gw-title">
        Gateway {namespace}/{name}
      </h1>
      <p class="actions">
        <a href={href.tester(namespace, name)}>Test a request</a>
        <a href={href.object('Gateway', namespace, name)}>History</a>
        <span class="muted">class {g.spec?.gatewayClassName}, version {g.metadata.resourceVersion}</span>
      </p>
      <section aria-labelledby="gw-conds">
        <h2 id="gw-conds">Conditions</h2>
        <Conditions items={g.status?.conditions} />
        {!g.status?.conditions?.length && <Explain kind="Gateway" namespace={namespace} name={name} />}
        <p>
          <strong>Addresses:</strong> {(g.status?.addresses ?? g.spec?.addresses ?? []).map((a: { type?: string; value: string }) => a.value).join(', ') || 'none assigned'}
        </p>
      </section>

      <section aria-labelledby="gw-listeners">
        <h2 id="gw-listeners">Listeners</h2>
        <div class="table-wrap">
          <table class="listeners cards">
            <thead>
              <tr>
                <th scope="col">Listener</th>
                <th scope="col">Port</th>
                <th scope="col">Protocol</th>
                <th scope="col">Hostname</th>
                <th scope="col">TLS</th>
                <th scope="col">Admits routes from</th>
                <th scope="col">Attached</th>
                <th scope="col">Conditions</th>
              </tr>
            </thead>
            <tbody>
              {listeners.map((l) => {
                const admitted = admittedIn(g, l);
                const st = lstatus.get(l.name);
                return (
                  <tr key={l.name} data-listener={l.name}>
                    <th data-label="Listener" scope="row">{l.name}</th>
                    <td data-label="Port">{l.port}</td>
                    <td data-label="Protocol">{l.protocol}</td>
                    <td data-label="Hostname">{l.hostname ?? '(any)'}</td>
                    <td data-label="TLS">{l.tls ? `${l.tls.mode ?? 'Terminate'}${l.tls.certificateRefs?.length ? `: ${l.tls.certificateRefs.map((c) => `${c.namespace ?? namespace}/${c.name}`).join(', ')}` : ''}` : '—'}</td>
                    <td data-label="Admits routes from" class="admits">
                      {admitted.words}
                      {l.allowedRoutes?.kinds?.length ? ` (kinds ${l.allowedRoutes.kinds.map((k) => k.kind).join(', ')})` : ''}
                      {mayWrite &&
                        (admitted.names ?? [])
                          .filter((n) => n !== namespace)
                          .map((n) => (
                            <button key={n} type="button" disabled={busy} onClick={() => changeNamespace(l.name, n, false)}>
                              Stop admitting {n}
                            </button>
                          ))}
                    </td>
                    <td data-label="Attached" data-attached={st?.attachedRoutes ?? 0}>{st?.attachedRoutes ?? 0}</td>
                    <td data-label="Conditions">
                      <Conditions items={st?.conditions} />
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
        {actionError != null && <Problem error={actionError} />}
      </section>

      <Proxies data={proxies.data} error={proxies.error} />

      <section aria-labelledby="gw-att">
        <h2 id="gw-att">Attachments</h2>
        {routes.error != null && <Problem error={routes.error} />}
        {!routes.complete && !rows.length ? (
          <Loading what="the routes" />
        ) : (
          <AttachmentList rows={rows} complete={routes.complete} gw={g} mayWrite={mayWrite} busy={busy} admit={(listener, ns) => changeNamespace(listener, ns, true)} />
        )}
      </section>
    </article>
  );
}

function Proxies({ data, error }: { data?: { snapshotVersion?: number; items: Proxy[] }; error?: unknown }) {
  return (
    <section aria-labelledby="gw-proxies">
      <h2 id="gw-proxies">Proxies</h2>
      {error != null && !data ? (
        <Problem error={error} />
      ) : !data ? (
        <Loading what="the proxies" />
      ) : !data.items.length ? (
        <p class="muted">
          No proxy serves this Gateway yet (snapshot {data.snapshotVersion ?? '—'}). Start one with <code>npx switchyard proxy --gateway NS/NAME</code> and a proxy token, or point Envoy or
          nginx at it.
        </p>
      ) : (
        <div class="table-wrap">
          <table class="proxies cards">
            <caption>Current snapshot version {data.snapshotVersion ?? '—'}</caption>
            <thead>
              <tr>
                <th scope="col">Proxy</th>
                <th scope="col">Kind</th>
                <th scope="col">Version</th>
                <th scope="col">In sync</th>
                <th scope="col">Last seen</th>
              </tr>
            </thead>
            <tbody>
              {data.items.map((p) => (
                <tr key={p.id}>
                  <th data-label="Proxy" scope="row">{p.id}</th>
                  <td data-label="Kind">{proxyKind(p)}</td>
                  <td data-label="Version">
                    {p.version ?? '—'}
                    {p.xds && (
                      <ul class="xds-types">
                        {Object.entries(p.xds.types).map(([type, t]) => (
                          <li key={type}>
                            {type}: {t.acked ? `acknowledged ${t.acked}` : 'not acknowledged'}
                            {t.nacked ? `; refused ${t.nacked.version}: ${t.nacked.error}` : ''}
                          </li>
                        ))}
                      </ul>
                    )}
                  </td>
                  <td data-label="In sync" class={p.state === 'SYNCED' ? 'ok' : 'bad'}>
                    {p.state === 'SYNCED' ? 'in sync' : p.state === 'STALE' ? 'behind (STALE)' : p.state === 'NACKED' ? 'rejected the last version (NACKED)' : p.state === 'NOT_SENT' ? 'serves no snapshot yet (NOT_SENT)' : (p.state ?? 'unknown')}
                    {p.error ? ` — ${p.error}` : ''}
                  </td>
                  <td data-label="Last seen">{when(p.lastSeen)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

type Filter = 'all' | 'refused' | 'attached';

function AttachmentList({ rows, complete, gw, mayWrite, busy, admit }: { rows: Attachment[]; complete: boolean; gw: K8sObject; mayWrite: boolean; busy: boolean; admit: (listener: string, ns: string) => void }) {
  const [filter, setFilter] = useState<Filter>('all');
  const [text, setText] = useState('');
  const [selected, setSelected] = useState<string>();
  const shown = useMemo(() => {
    const t = text.trim().toLowerCase();
    return rows.filter((r) => (filter === 'all' || (filter === 'refused' ? r.state !== 'attached' : r.state === 'attached')) && (!t || `${r.namespace}/${r.name} ${r.kind} ${r.reason}`.toLowerCase().includes(t)));
  }, [rows, filter, text]);
  const refused = rows.filter((r) => r.state !== 'attached').length;
  const sel = rows.find((r) => r.key === selected);
  const listeners: Listener[] = gw.spec?.listeners ?? [];

  if (!rows.length)
    return (
      <p class="muted empty-attachments">
        No route names this Gateway{' '}
        {`(that this token may read). A route attaches with spec.parentRefs: [{name: ${gw.metadata.name}, namespace: ${gw.metadata.namespace}}]`}.
      </p>
    );
  return (
    <div class="attachments">
      <p class="summary" data-attached={rows.length - refused} data-refused={refused} data-complete={String(complete)} role="status">
        {rows.length} route{rows.length === 1 ? '' : 's'} name this Gateway: {rows.length - refused} attached, {refused} not attached.
        {!complete && ' Still reading the routes\u2026'}
      </p>
      <div class="filters" role="group" aria-label="Show">
        {(['all', 'refused', 'attached'] as Filter[]).map((f) => (
          <button key={f} type="button" aria-pressed={filter === f} onClick={() => setFilter(f)}>
            {f === 'all' ? 'All' : f === 'refused' ? 'Not attached' : 'Attached'}
          </button>
        ))}
        <label>
          Find <input type="search" value={text} onInput={(e) => setText((e.target as HTMLInputElement).value)} placeholder="namespace/name or reason" />
        </label>
      </div>
      <VirtualList
        items={shown}
        rowHeight={ROW}
        height={Math.min(480, Math.max(ROW, shown.length * ROW))}
        label="Routes that name this Gateway"
        keyOf={(r) => r.key}
        onSelect={(r) => setSelected(r.key)}
        row={(r) => (
          <div class={`att ${r.state}${r.key === selected ? ' selected' : ''}`} data-route={`${r.namespace}/${r.name}`} data-state={r.state}>
            <div class="att-head">
              <span class={`badge ${r.state}`}>{r.state === 'attached' ? 'attached' : r.state === 'refused' ? 'refused' : 'pending'}</span>
              <a href={href.object(r.kind, r.namespace, r.name)} tabIndex={-1}>
                {r.kind} {r.namespace}/{r.name}
              </a>
              {r.section && <span class="muted"> → {r.section}</span>}
              <span class="reason">{r.reason}</span>
              {r.refs && <span class="badge warn">{r.refs.reason}</span>}
            </div>
            <div class="att-msg" title={r.message}>
              {r.fix ? `${r.message} Fix: ${r.fix}` : r.refs ? r.refs.message : r.message}
            </div>
          </div>
        )}
      />
      {sel ? (
        <section class="detail" aria-live="polite" aria-label="Selected route">
          <h3>
            <a href={href.object(sel.kind, sel.namespace, sel.name)}>
              {sel.kind} {sel.namespace}/{sel.name}
            </a>{' '}
            — {sel.state === 'attached' ? 'attached' : sel.state === 'refused' ? 'refused' : 'not reported yet'}
          </h3>
          <p>
            <strong>{sel.reason}:</strong> {sel.message}
          </p>
          {sel.fix && (
            <p class="fix">
              <strong>What would fix it:</strong> {sel.fix}
            </p>
          )}
          {sel.refs && (
            <p class="fix">
              <strong>Unresolved reference ({sel.refs.reason}):</strong> {sel.refs.message}
            </p>
          )}
          {sel.admit && mayWrite && (
            <p>
              {listeners.map((l) => (
                <button key={l.name} type="button" disabled={busy} class="primary" onClick={() => admit(l.name, sel.admit!)}>
                  Admit namespace {sel.admit} on listener {l.name}
                </button>
              ))}
            </p>
          )}
          {sel.admit && !mayWrite && <p class="muted">This token may not change the Gateway: ask its operator to admit namespace {sel.admit}.</p>}
          {sel.state === 'pending' && <Explain kind={sel.kind} namespace={sel.namespace} name={sel.name} />}
        </section>
      ) : (
        <p class="muted">Select a route (click, or the arrow keys in the list) to see the whole reason and what would fix it.</p>
      )}
    </div>
  );
}

/** An object with no status from this controller (a route, a Gateway): the controller's explain answer says why. */
function Explain({ kind, namespace, name }: { kind: string; namespace: string; name: string }) {
  const e = useLoad(() => api<{ entries?: { reason: string; message: string }[] }>(`${objectPath(kind, namespace, name)}/explain`), [kind, namespace, name]);
  if (e.error) return <Problem error={e.error} />;
  if (!e.data) return <Loading what="the controller's explanation" />;
  return (
    <div>
      <strong>The controller's explanation:</strong>
      <ul>
        {(e.data.entries ?? []).map((x, i) => (
          <li key={i}>
            <strong>{x.reason}:</strong> {x.message}
          </li>
        ))}
      </ul>
    </div>
  );
}
