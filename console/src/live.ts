// The events feed's SSE (GET /api/v1/events/watch?status=true), read with fetch because EventSource
// cannot send the Authorization header. Views subscribe to the items; everyone sees whether the
// stream is up, and a lost stream is resumed from the last position seen (Last-Event-ID), so no
// change is missed across a reconnect.
import type { K8sObject } from './api';

export interface FeedItem {
  position: number;
  type: 'Created' | 'Updated' | 'Deleted' | 'StatusChanged';
  kind: string;
  namespace?: string;
  name: string;
  version: number;
  actor: string;
  time: string;
  object?: K8sObject;
}

export type StreamState = 'connecting' | 'live' | 'lost';

type Listener = (items: FeedItem[]) => void;
type StateListener = (s: StreamState, detail: string) => void;

const RETRY_MS = 2000;

export class LiveFeed {
  private listeners = new Set<Listener>();
  private stateListeners = new Set<StateListener>();
  private last: string | undefined;
  private abort: AbortController | undefined;
  private stopped = false;
  state: StreamState = 'connecting';
  detail = '';

  constructor(private readonly token: string) {}

  start(): void {
    void this.run();
  }

  stop(): void {
    this.stopped = true;
    this.abort?.abort();
  }

  on(l: Listener): () => void {
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  }

  onState(l: StateListener): () => void {
    this.stateListeners.add(l);
    return () => this.stateListeners.delete(l);
  }

  private setState(s: StreamState, detail = ''): void {
    if (s === this.state && detail === this.detail) return;
    this.state = s;
    this.detail = detail;
    for (const l of this.stateListeners) l(s, detail);
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      this.abort = new AbortController();
      try {
        const res = await fetch('/api/v1/events/watch?status=true', {
          headers: { Authorization: `Bearer ${this.token}`, Accept: 'text/event-stream', ...(this.last ? { 'Last-Event-ID': this.last } : {}) },
          signal: this.abort.signal,
        });
        if (!res.ok || !res.body) throw new Error(`the server answered ${res.status}`);
        this.setState('live');
        await this.read(res.body);
        if (!this.stopped) this.setState('lost', 'the server closed the stream');
      } catch (e) {
        if (this.stopped) return;
        this.setState('lost', e instanceof Error ? e.message : String(e));
      }
      await new Promise((r) => setTimeout(r, RETRY_MS));
    }
  }

  private async read(body: ReadableStream<Uint8Array>): Promise<void> {
    const reader = body.getReader();
    const decoder = new TextDecoder();
    let buf = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buf += decoder.decode(value, { stream: true });
      const batch: FeedItem[] = [];
      let cut: number;
      while ((cut = buf.indexOf('\n\n')) >= 0) {
        const block = buf.slice(0, cut);
        buf = buf.slice(cut + 2);
        let id: string | undefined;
        let data = '';
        for (const line of block.split('\n')) {
          if (line.startsWith('id:')) id = line.slice(3).trim();
          else if (line.startsWith('data:')) data += line.slice(5).replace(/^ /, '');
        }
        if (id) this.last = id;
        if (data) batch.push(JSON.parse(data) as FeedItem);
      }
      if (batch.length) for (const l of this.listeners) l(batch);
    }
  }
}
