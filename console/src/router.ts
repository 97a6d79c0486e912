// Addresses that can be shared: every view is a path under /console (the server answers the page for
// each), so a link to a Gateway, a route or one of its versions opens the same view for whoever signs in.
import { useEffect, useState } from 'preact/hooks';

export const BASE = '/console';

export type Route =
  | { view: 'gateways' }
  | { view: 'gateway'; namespace: string; name: string }
  | { view: 'tester'; namespace: string; name: string }
  | { view: 'object'; kind: string; namespace: string; name: string }
  | { view: 'live' }
  | { view: 'missing'; path: string };

export function parse(pathname: string): Route {
  const rel = pathname.startsWith(BASE) ? pathname.slice(BASE.length) : pathname;
  const parts = rel.split('/').filter(Boolean).map(decodeURIComponent);
  if (parts.length === 0) return { view: 'gateways' };
  if (parts[0] === 'live' && parts.length === 1) return { view: 'live' };
  if (parts[0] === 'gateways' && parts.length === 3) return { view: 'gateway', namespace: parts[1], name: parts[2] };
  if (parts[0] === 'gateways' && parts.length === 4 && parts[3] === 'tester') return { view: 'tester', namespace: parts[1], name: parts[2] };
  // cluster-scoped kinds carry "-" for the namespace, so every object has one address shape
  if (parts[0] === 'objects' && parts.length === 4) return { view: 'object', kind: parts[1], namespace: parts[2], name: parts[3] };
  return { view: 'missing', path: pathname };
}

const seg = encodeURIComponent;
export const href = {
  gateways: () => `${BASE}/`,
  gateway: (ns: string, name: string) => `${BASE}/gateways/${seg(ns)}/${seg(name)}`,
  tester: (ns: string, name: string, q?: URLSearchParams) => `${BASE}/gateways/${seg(ns)}/${seg(name)}/tester${q && [...q.keys()].length ? `?${q}` : ''}`,
  object: (kind: string, ns: string | undefined, name: string, q?: Record<string, string>) =>
    `${BASE}/objects/${seg(kind)}/${seg(ns || '-')}/${seg(name)}${q ? `?${new URLSearchParams(q)}` : ''}`,
  live: () => `${BASE}/live`,
};

export function navigate(to: string, replace = false): void {
  if (replace) history.replaceState(null, '', to);
  else history.pushState(null, '', to);
  dispatchEvent(new PopStateEvent('popstate'));
}

/** The current address, updated on every navigation and on Back/Forward. */
export function useLocation(): { route: Route; query: URLSearchParams } {
  const read = () => ({ route: parse(location.pathname), query: new URLSearchParams(location.search) });
  const [loc, setLoc] = useState(read);
  useEffect(() => {
    const on = () => setLoc(read());
    addEventListener('popstate', on);
    return () => removeEventListener('popstate', on);
  }, []);
  return loc;
}

/** A click on an in-console link navigates without a reload; modified clicks (new tab) stay the browser's. */
export function onLinkClick(e: MouseEvent): void {
  if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
  const a = (e.target as Element | null)?.closest?.('a');
  if (!a || a.target || a.origin !== location.origin || !a.pathname.startsWith(BASE)) return;
  e.preventDefault();
  navigate(a.pathname + a.search + a.hash);
}
