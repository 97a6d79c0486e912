// A small SSE client for tests: collects events from a streaming response.
import { sseEvents, type SseEvent } from '../../src/core/snapshot/sse-events';

export type { SseEvent };

export interface SseClient {
  events: SseEvent[];
  comments: string[];
  next(pred?: (e: SseEvent) => boolean, timeoutMs?: number): Promise<SseEvent>;
  close(): void;
}

export async function sse(url: string, headers: Record<string, string>): Promise<SseClient> {
  const abort = new AbortController();
  const res = await fetch(url, { headers, signal: abort.signal });
  if (res.status !== 200) throw new Error(`SSE ${url}: ${res.status} ${await res.text()}`);
  const events: SseEvent[] = [];
  const comments: string[] = [];
  const waiters: (() => void)[] = [];
  let consumed = 0;
  void (async () => {
    try {
      for await (const ev of sseEvents(res.body!, (c) => comments.push(c))) {
        events.push(ev);
        for (const w of waiters.splice(0)) w();
      }
    } catch {
      /* closed */
    }
  })();
  return {
    events, comments,
    async next(pred = () => true, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        while (consumed < events.length) {
          const e = events[consumed++];
          if (pred(e)) return e;
        }
        const left = deadline - Date.now();
        if (left <= 0) throw new Error('no matching SSE event in time');
        await new Promise<void>((r) => { waiters.push(r); setTimeout(r, left); });
      }
    },
    close: () => abort.abort(),
  };
}
