// The request tester over resolve: where would this request go, and why. The request is kept in the
// address, so a result can be shared as a link and opens the same answer for a colleague.
import { useEffect, useState } from 'preact/hooks';
import { api, objectPath } from '../api';
import { href, navigate } from '../router';
import { Problem } from '../ui';
import { pickBackend } from '../../../src/core/resolve/actions';
import type { CompiledBackend } from '../../../src/core/compile/types';

/** The precedence ladder, in the order Gateway API applies it. */
export const LADDER: { step: string; words: string }[] = [
  { step: 'listener', words: 'the listener that takes the request' },
  { step: 'hostname', words: 'the most specific hostname' },
  { step: 'exactPath', words: 'an Exact path over a prefix' },
  { step: 'prefixLength', words: 'the longest path prefix' },
  { step: 'method', words: 'a method match' },
  { step: 'headers', words: 'the most header matches' },
  { step: 'query', words: 'the most query matches' },
  { step: 'creationTimestamp', words: 'the oldest route' },
  { step: 'name', words: 'the first route by namespace/name' },
  { step: 'ruleOrder', words: 'the first rule in the route' },
];

interface RouteRef {
  kind: string;
  namespace?: string;
  name?: string;
  redacted?: boolean;
}
interface Resolved {
  matched: boolean;
  forwarded: boolean;
  listener?: string;
  route: RouteRef | null;
  ruleIndex?: number;
  decidedBy?: string;
  backends?: { kind: string; namespace?: string; name?: string; port?: number; weight: number; share?: number; valid: boolean; reason?: string; endpoints?: number }[];
  statusCode?: number;
  grpcStatus?: string;
  redirect?: { scheme?: string; hostname?: string; port?: number; path?: string; statusCode?: number };
  rewrite?: { hostname?: string; path?: string };
  requestHeaders?: Record<string, string>;
  responseHeaders?: Record<string, string>;
  candidates?: { route: RouteRef; listener?: string; ruleIndex?: number; lostAt?: string }[];
  unattached?: { route: RouteRef; ruleIndex?: number; reason?: string; message?: string; better?: boolean }[];
  explanation?: string[];
  snapshotVersion?: number;
}

const FIELDS = ['host', 'path', 'method', 'headers', 'query', 'port', 'protocol'] as const;

function pairs(text: string, sep: RegExp): Record<string, string> | undefined {
  const out: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const m = sep.exec(line);
    if (m) out[m[1].trim()] = m[2].trim();
  }
  return Object.keys(out).length ? out : undefined;
}

const routeName = (r: RouteRef) => (r.namespace ? `${r.kind} ${r.namespace}/${r.name}` : `${r.kind} ${r.name}`);
function RouteLink({ r }: { r: RouteRef }) {
  // a route in a namespace the token may not read is named only in words, as the API names it
  if (r.redacted || !r.namespace || !r.name) return <span class="redacted">{article(r.kind)} {r.kind} in another namespace</span>;
  return <a href={href.object(r.kind, r.namespace, r.name)}>{routeName(r)}</a>;
}
// as the name is said: "an HTTPRoute" (aitch), "a UDPRoute" (you), "a Service"
const article = (kind: string) => (/^(HTTP|[AEIO])/.test(kind) ? 'an' : 'a');
const backendName = (b: { kind: string; namespace?: string; name?: string; port?: number }) =>
  b.namespace && b.name ? `${b.namespace}/${b.name}${b.port ? `:${b.port}` : ''}` : `${article(b.kind)} ${b.kind} in another namespace${b.port ? ` (port ${b.port})` : ''}`;

export function TesterView({ namespace, name, query }: { namespace: string; name: string; query: URLSearchParams }) {
  const init = Object.fromEntries(FIELDS.map((f) => [f, query.get(f) ?? (f === 'path' ? '/' : f === 'method' ? 'GET' : '')])) as Record<(typeof FIELDS)[number], string>;
  const [form, setForm] = useState(init);
  const [result, setResult] = useState<Resolved>();
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);

  const run = async (f: typeof form) => {
    setBusy(true);
    setError(undefined);
    try {
      const body: Record<string, unknown> = { hostname: f.host || undefined, path: f.path || '/', method: f.method || 'GET', headers: pairs(f.headers, /^([^:]+):(.*)$/), query: pairs(f.query, /^([^=]+)=(.*)$/) };
      if (f.port) body.port = Number(f.port);
      if (f.protocol) body.protocol = f.protocol;
      setResult(await api<Resolved>(`${objectPath('Gateway', namespace, name)}/resolve`, { method: 'POST', body }));
    } catch (e) {
      setResult(undefined);
      setError(e);
    } finally {
      setBusy(false);
    }
  };

  // a shared link runs its request on open
  useEffect(() => {
    if (query.get('host') || query.get('run')) void run(init);
  }, [namespace, name]);

  const submit = (e: Event) => {
    e.preventDefault();
    const q = new URLSearchParams();
    for (const f of FIELDS) if (form[f]) q.set(f, form[f]);
    navigate(href.tester(namespace, name, q), true);
    void run(form);
  };
  const field = (f: (typeof FIELDS)[number]) => ({ id: `t-${f}`, name: f, value: form[f], onInput: (e: Event) => setForm({ ...form, [f]: (e.target as HTMLInputElement).value }) });

  return (
    <article aria-labelledby="t-title">
      <h1 id="t-title">
        Test a request on <a href={href.gateway(namespace, name)}>{`${namespace}/${name}`}</a>
      </h1>
      <form class="tester" onSubmit={submit}>
        <label for="t-host">Host</label>
        <input {...field('host')} placeholder="www.shop.example" />
        <label for="t-path">Path</label>
        <input {...field('path')} />
        <label for="t-method">Method</label>
        <select {...field('method')}>
          {['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'].map((m) => (
            <option key={m}>{m}</option>
          ))}
        </select>
        <label for="t-port">Port (optional)</label>
        <input {...field('port')} inputMode="numeric" />
        <label for="t-protocol">Protocol (optional)</label>
        <select {...field('protocol')}>
          {['', 'HTTP', 'HTTPS', 'GRPC', 'TLS', 'TCP', 'UDP'].map((m) => (
            <option key={m} value={m}>
              {m || '(from the listener)'}
            </option>
          ))}
        </select>
        <label for="t-headers">Headers, one "Name: value" a line</label>
        <textarea {...field('headers')} rows={3} />
        <label for="t-query">Query, one "name=value" a line</label>
        <textarea {...field('query')} rows={2} />
        <button type="submit" class="primary" disabled={busy}>
          Resolve
        </button>
      </form>
      {error != null && <Problem error={error} />}
      {result && <Answer r={result} />}
    </article>
  );
}

const SAMPLES = 1000;

/**
 * The split as the proxies make it: each request drawn with the same weighted choice the reference
 * proxy runs (src/core's pickBackend over Math.random()), counted.
 */
function sample(backends: { weight: number }[]): number[] {
  const counts = backends.map(() => 0);
  const table = backends as unknown as CompiledBackend[];
  for (let i = 0; i < SAMPLES; i++) {
    const k = pickBackend(table, Math.random());
    if (k !== undefined) counts[k]++;
  }
  return counts;
}

function Answer({ r }: { r: Resolved }) {
  const decided = LADDER.findIndex((s) => s.step === r.decidedBy);
  const [counts, setCounts] = useState<number[]>();
  useEffect(() => setCounts(undefined), [r]);
  return (
    <section class="answer" aria-labelledby="t-answer" data-decided-by={r.decidedBy ?? ''}>
      <h2 id="t-answer">
        {r.forwarded ? 'Forwarded' : r.matched ? 'Answered by the gateway' : 'No route matched'}
        {r.statusCode ? ` (status ${r.statusCode})` : ''}
        {r.grpcStatus ? ` (gRPC ${r.grpcStatus})` : ''}
      </h2>
      {r.route && (
        <p class="winner">
          Winner: <RouteLink r={r.route} />
          {r.ruleIndex != null ? `, rule ${r.ruleIndex}` : ''}
          {r.listener ? `, on listener ${r.listener}` : ''}
        </p>
      )}
      {r.decidedBy === 'onlyCandidate' && <p>Decided by: onlyCandidate — it is the only rule that matched, so no step of the precedence ladder was needed.</p>}
      {r.decidedBy && decided >= 0 && (
        <div>
          <h3>Decided by: {r.decidedBy}</h3>
          <ol class="ladder" aria-label="Precedence ladder">
            {LADDER.map((s, i) => (
              <li key={s.step} class={i === decided ? 'decided' : i < decided ? 'tied' : 'unused'} aria-current={i === decided ? 'step' : undefined}>
                <code>{s.step}</code> {s.words}
                {i === decided ? ' ← decided here' : i < decided ? ' (tied)' : ''}
              </li>
            ))}
          </ol>
        </div>
      )}
      {!!r.backends?.length && (
        <div>
          <h3>Backends{r.backends.length > 1 ? ': the split' : ''}</h3>
          <ul class="split">
            {r.backends.map((b, i) => {
              const share = b.share ?? b.weight / Math.max(1, r.backends!.reduce((n, x) => n + x.weight, 0));
              return (
                <li key={i} class={b.valid ? '' : 'bad'}>
                  <span class="bk">
                    {backendName(b)} — weight {b.weight}, {Math.round(share * 1000) / 10}%{b.endpoints != null ? `, ${b.endpoints} endpoint${b.endpoints === 1 ? '' : 's'}` : ''}
                    {!b.valid ? ` — unusable: ${b.reason ?? 'invalid'} (its share is answered 500)` : ''}
                  </span>
                  <span class="bar" aria-hidden="true">
                    <span style={{ width: `${share * 100}%` }} />
                  </span>
                  {counts && (
                    <span class="sampled" data-count={counts[i]}>
                      {counts[i]} of {SAMPLES} sampled requests ({Math.round((counts[i] / SAMPLES) * 1000) / 10}%)
                    </span>
                  )}
                </li>
              );
            })}
          </ul>
          {r.backends.length > 1 && (
            <p>
              <button type="button" onClick={() => setCounts(sample(r.backends!))}>
                Sample {SAMPLES.toLocaleString('en')} requests
              </button>
              <span class="muted"> each drawn with the weighted choice the reference proxy makes per request.</span>
            </p>
          )}
        </div>
      )}
      {r.redirect && (
        <p>
          <strong>Redirect</strong> {r.redirect.statusCode}: {r.redirect.scheme}://{r.redirect.hostname}
          {r.redirect.port ? `:${r.redirect.port}` : ''}
          {r.redirect.path}
        </p>
      )}
      {r.rewrite && (
        <p>
          <strong>Rewrite</strong>: the backend receives {r.rewrite.hostname ? `Host ${r.rewrite.hostname}` : ''} {r.rewrite.path ? `path ${r.rewrite.path}` : ''}
        </p>
      )}
      <Headers title="Headers the backend receives" h={r.requestHeaders} />
      <Headers title="Headers the client gets" h={r.responseHeaders} />
      {!!r.candidates?.length && (
        <div>
          <h3>Losers</h3>
          <ul class="losers">
            {r.candidates.map((c, i) => (
              <li key={i}>
                <RouteLink r={c.route} />
                {c.ruleIndex != null ? ` rule ${c.ruleIndex}` : ''} lost at <code>{c.lostAt}</code>
              </li>
            ))}
          </ul>
        </div>
      )}
      {!!r.unattached?.length && (
        <div>
          <h3>Matching routes that are not attached</h3>
          <ul class="losers">
            {r.unattached.map((c, i) => (
              <li key={i}>
                <RouteLink r={c.route} />
                {c.better ? ' would match better, but ' : ' matches, but '}is not attached: <strong>{c.reason}</strong> {c.message}
              </li>
            ))}
          </ul>
        </div>
      )}
      {!!r.explanation?.length && (
        <div>
          <h3>Explanation</h3>
          <ol class="explanation">
            {r.explanation.map((line, i) => (
              <li key={i}>{line}</li>
            ))}
          </ol>
        </div>
      )}
      <p class="muted">Snapshot version {r.snapshotVersion ?? '—'}.</p>
    </section>
  );
}

function Headers({ title, h }: { title: string; h?: Record<string, string> }) {
  if (!h || !Object.keys(h).length) return null;
  return (
    <div>
      <h3>{title}</h3>
      <dl class="headers">
        {Object.entries(h).map(([k, v]) => [<dt key={`k${k}`}>{k}</dt>, <dd key={`v${k}`}>{v}</dd>])}
      </dl>
    </div>
  );
}
