// The console's shell: sign-in, the header (who is signed in, whether the live stream is up), and the
// view the address names.
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import './styles.css';
import { ApiError, setApiToken, whoAmI } from './api';
import { begin, end, refresh, session, storedToken, storedWho, useStreamState, type Session } from './session';
import { href, onLinkClick, useLocation } from './router';
import { Problem } from './ui';
import { GatewaysView } from './views/gateways';
import { GatewayView } from './views/gateway';
import { TesterView } from './views/tester';
import { ObjectView } from './views/object';
import { LiveView } from './views/live-view';

function SignIn({ onDone, error }: { onDone: (s: Session) => void; error?: string }) {
  const [token, setToken] = useState('');
  const [problem, setProblem] = useState<string | undefined>(error);
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setProblem(undefined);
    try {
      setApiToken(token.trim());
      onDone(begin(token.trim(), await whoAmI()));
    } catch (err) {
      setProblem(err instanceof ApiError && err.status === 401 ? 'This token is unknown, revoked or expired.' : (err as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <main class="signin">
      <h1>Switchyard console</h1>
      <form onSubmit={submit}>
        <label for="token">Bearer token</label>
        <input id="token" name="token" type="password" autoComplete="off" required value={token} onInput={(e) => setToken((e.target as HTMLInputElement).value)} autoFocus />
        <button type="submit" disabled={busy}>
          Sign in
        </button>
        <p class="muted">
          The token is kept for this tab only and sent to this server alone. The first start writes the admin's to <code>.switchyard/admin-token</code>; an admin makes
          others with <code>POST /api/v1/tokens</code>.
        </p>
        {problem && <Problem error={problem} />}
      </form>
    </main>
  );
}

function StreamBadge() {
  const { state, detail } = useStreamState();
  const words = state === 'live' ? 'Live' : state === 'connecting' ? 'Connecting…' : `Lost the live stream (${detail}); reconnecting`;
  return (
    <span class={`stream ${state}`} role="status" aria-live="polite" data-stream={state} title={words}>
      {words}
    </span>
  );
}

function App() {
  // a reload in a signed-in tab: the view at once, with who the token was; the server is asked again
  const [s, setS] = useState<Session | undefined>(() => {
    const t = storedToken();
    const who = storedWho();
    return session() ?? (t && who ? begin(t, who) : undefined);
  });
  const [restoring, setRestoring] = useState(!s && !!storedToken());
  const [signInError, setSignInError] = useState<string>();
  const { route, query } = useLocation();

  useEffect(() => {
    const t = storedToken();
    if (!t) return;
    setApiToken(t);
    whoAmI().then(
      (who) => setS(refresh(who) ?? begin(t, who)),
      (e) => {
        end();
        setS(undefined);
        setSignInError((e as Error).message);
      },
    ).finally(() => setRestoring(false));
  }, []);

  if (restoring) return <p class="muted">Signing in…</p>;
  if (!s) return <SignIn onDone={setS} error={signInError} />;

  const ns = s.who.namespaces?.length ? ` in ${s.who.namespaces.join(', ')}` : s.who.gateways?.length ? ` of ${s.who.gateways.join(', ')}` : '';
  let view;
  switch (route.view) {
    case 'gateways':
      view = <GatewaysView />;
      break;
    case 'gateway':
      view = <GatewayView namespace={route.namespace} name={route.name} />;
      break;
    case 'tester':
      view = <TesterView namespace={route.namespace} name={route.name} query={query} />;
      break;
    case 'object':
      view = <ObjectView kind={route.kind} namespace={route.namespace === '-' ? undefined : route.namespace} name={route.name} query={query} />;
      break;
    case 'live':
      view = <LiveView />;
      break;
    default:
      view = <Problem error={`Nothing is at ${route.path}. Start from the Gateways.`} />;
  }
  return (
    <div class="shell" onClick={(e) => onLinkClick(e as unknown as MouseEvent)}>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header>
        <nav aria-label="Console">
          <a href={href.gateways()} class="brand">
            Switchyard
          </a>
          <a href={href.gateways()}>Gateways</a>
          <a href={href.live()}>Live changes</a>
        </nav>
        <StreamBadge />
        <span class="who" data-role={s.who.role}>
          {s.who.name} ({s.who.role}
          {ns})
        </span>
        <button
          type="button"
          class="link"
          onClick={() => {
            end();
            setS(undefined);
          }}
        >
          Sign out
        </button>
      </header>
      <main id="main" tabIndex={-1}>
        {view}
      </main>
    </div>
  );
}

render(<App />, document.getElementById('app')!);
