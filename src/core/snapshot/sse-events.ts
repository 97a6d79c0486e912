// Reads a Server-Sent Events stream (the snapshot watch) into events, as EventSource would.
export interface SseEvent {
  id?: string;
  event?: string;
  data: string;
}

/** The events of a text/event-stream body; comment lines go to `onComment` (heartbeats and the like). */
export async function* sseEvents(stream: ReadableStream<Uint8Array>, onComment?: (text: string) => void): AsyncGenerator<SseEvent> {
  const reader = stream.getReader();
  const dec = new TextDecoder();
  let buf = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buf += dec.decode(value, { stream: true }).replace(/\r\n?/g, '\n');
      let i;
      while ((i = buf.indexOf('\n\n')) >= 0) {
        const block = buf.slice(0, i);
        buf = buf.slice(i + 2);
        const ev: SseEvent = { data: '' };
        const data: string[] = [];
        for (const line of block.split('\n')) {
          if (line.startsWith(':')) {
            onComment?.(line.slice(1).trim());
            continue;
          }
          const c = line.indexOf(':');
          const field = c >= 0 ? line.slice(0, c) : line;
          const val = c >= 0 ? line.slice(c + 1).replace(/^ /, '') : '';
          if (field === 'id') ev.id = val;
          else if (field === 'event') ev.event = val;
          else if (field === 'data') data.push(val);
        }
        if (data.length) {
          ev.data = data.join('\n');
          yield ev;
        }
      }
    }
  } finally {
    reader.releaseLock();
  }
}
