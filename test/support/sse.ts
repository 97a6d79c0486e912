// A small SSE client for tests: collects events from a streaming response.
export interface SseEvent { id?: string; event?: string; data: string }

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
    const reader = res.body!.getReader();
    const dec = new TextDecoder();
    let buf = '';
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buf += dec.decode(value, { stream: true });
        let i;
        while ((i = buf.indexOf('\n\n')) >= 0) {
          const block = buf.slice(0, i);
          buf = buf.slice(i + 2);
          const ev: SseEvent = { data: '' };
          const data: string[] = [];
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) comments.push(line.slice(1).trim());
            else if (line.startsWith('id: ')) ev.id = line.slice(4);
            else if (line.startsWith('event: ')) ev.event = line.slice(7);
            else if (line.startsWith('data: ')) data.push(line.slice(6));
          }
          if (data.length) {
            ev.data = data.join('\n');
            events.push(ev);
            for (const w of waiters.splice(0)) w();
          }
        }
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
