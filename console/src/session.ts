// The signed-in token lives in sessionStorage: it is gone when the tab closes, and never shared with
// another tab or written to disk as a cookie would be.
import { useEffect, useState } from 'preact/hooks';
import { setApiToken, type WhoAmI } from './api';
import { LiveFeed, type FeedItem, type StreamState } from './live';

const KEY = 'switchyard.token';
const WHO = 'switchyard.who';

export interface Session {
  token: string;
  who: WhoAmI;
  feed: LiveFeed;
}

let current: Session | undefined;

export function storedToken(): string | null {
  return sessionStorage.getItem(KEY);
}

/** Who the stored token was at sign-in: a reload shows the view at once and asks again meanwhile. */
export function storedWho(): WhoAmI | undefined {
  try {
    return JSON.parse(sessionStorage.getItem(WHO) ?? '') as WhoAmI;
  } catch {
    return undefined;
  }
}

/** The same session with what the server now says of its token (the feed goes on). */
export function refresh(who: WhoAmI): Session | undefined {
  if (!current) return undefined;
  sessionStorage.setItem(WHO, JSON.stringify(who));
  current = { ...current, who };
  return current;
}

export function begin(token: string, who: WhoAmI): Session {
  sessionStorage.setItem(KEY, token);
  sessionStorage.setItem(WHO, JSON.stringify(who));
  setApiToken(token);
  current?.feed.stop();
  const feed = new LiveFeed(token);
  feed.start();
  current = { token, who, feed };
  return current;
}

export function end(): void {
  sessionStorage.removeItem(KEY);
  sessionStorage.removeItem(WHO);
  current?.feed.stop();
  current = undefined;
  setApiToken('');
}

export function session(): Session | undefined {
  return current;
}

/** Calls `on` with each batch of the feed's items while the view is shown. */
export function useFeed(on: (items: FeedItem[]) => void, deps: unknown[]): void {
  useEffect(() => current?.feed.on(on), deps);
}

export function useStreamState(): { state: StreamState; detail: string } {
  const [s, setS] = useState({ state: current?.feed.state ?? ('connecting' as StreamState), detail: current?.feed.detail ?? '' });
  useEffect(() => {
    const feed = current?.feed;
    if (!feed) return;
    // the stream may have changed state between the render and this subscription
    setS({ state: feed.state, detail: feed.detail });
    return feed.onState((state, detail) => setS({ state, detail }));
  }, [current]);
  return s;
}
