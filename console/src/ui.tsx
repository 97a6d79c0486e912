// Small pieces every view uses: loading and error states in words, conditions, and a data hook that
// reloads when its inputs change.
import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useState } from 'preact/hooks';
import { ApiError } from './api';

export function Problem({ error, children }: { error: unknown; children?: ComponentChildren }) {
  const text = error instanceof ApiError || error instanceof Error ? error.message : String(error);
  return (
    <div class="problem" role="alert">
      {text}
      {children}
    </div>
  );
}

export function Loading({ what }: { what: string }) {
  return (
    <p class="muted" role="status">
      Loading {what}…
    </p>
  );
}

export interface Condition {
  type: string;
  status: string;
  reason: string;
  message?: string;
  lastTransitionTime?: string;
}

export function Conditions({ items }: { items?: Condition[] }) {
  if (!items?.length) return <p class="muted">No conditions reported yet.</p>;
  return (
    <ul class="conditions">
      {items.map((c) => (
        <li key={c.type} class={`cond ${c.status === 'True' ? (c.type === 'Conflicted' ? 'bad' : 'ok') : c.type === 'Conflicted' ? 'ok' : 'bad'}`}>
          <strong>{c.type}</strong> {c.status} <span class="reason">{c.reason}</span>
          {c.message && <span class="msg"> — {c.message}</span>}
        </li>
      ))}
    </ul>
  );
}

export type Loaded<T> = { data?: T; error?: unknown; loading: boolean; reload: () => void; set: (f: (d: T | undefined) => T | undefined) => void };

/** Runs `load` now and whenever `deps` change; `reload` runs it again (keeping the data shown meanwhile). */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): Loaded<T> {
  const [state, setState] = useState<{ data?: T; error?: unknown; loading: boolean }>({ loading: true });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    setState((s) => ({ ...s, loading: true }));
    load().then(
      (data) => live && setState({ data, loading: false }),
      (error) => live && setState((s) => ({ data: s.data, error, loading: false })),
    );
    return () => {
      live = false;
    };
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  const set = useCallback((f: (d: T | undefined) => T | undefined) => setState((s) => ({ ...s, data: f(s.data) })), []);
  return { ...state, reload, set };
}

export function when(iso?: string): string {
  if (!iso) return '';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toISOString().replace('T', ' ').replace(/\.\d+Z$/, ' UTC');
}
