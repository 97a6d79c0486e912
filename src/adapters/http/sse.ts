// Server-Sent Events plumbing shared by the events feed and snapshot watches.
import type { Request, Response } from 'express';

export interface SseStream {
  send(event: { id?: string | number; event?: string; data: string }): Promise<void>;
  /** one event already framed (see sseFrame): the same frame can go to many streams */
  sendFrame(frame: string): Promise<void>;
  comment(text: string): void;
  closed: boolean;
  onClose(fn: () => void): void;
  end(): void;
}

export const HEARTBEAT_MS = 15_000;

export function openSse(req: Request, res: Response, tracker?: Set<Response>): SseStream {
  res.status(200);
  res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
  res.setHeader('Cache-Control', 'no-cache, no-transform');
  res.setHeader('Connection', 'keep-alive');
  res.setHeader('X-Accel-Buffering', 'no');
  res.flushHeaders();
  req.socket.setNoDelay(true);
  req.socket.setTimeout(0);
  tracker?.add(res);
  const closers: (() => void)[] = [];
  const stream: SseStream = {
    closed: false,
    async send(ev) {
      await stream.sendFrame(sseFrame(ev));
    },
    async sendFrame(chunk) {
      if (stream.closed) return;
      if (!res.write(chunk)) await new Promise<void>((resolve) => {
        const done = () => { res.off('drain', done); res.off('close', done); resolve(); };
        res.on('drain', done);
        res.on('close', done);
      });
    },
    comment(text) {
      if (!stream.closed) res.write(`: ${text}\n\n`);
    },
    onClose(fn) {
      closers.push(fn);
    },
    end() {
      if (!stream.closed) res.end();
    },
  };
  const heartbeat = setInterval(() => stream.comment('heartbeat'), HEARTBEAT_MS);
  res.on('close', () => {
    stream.closed = true;
    clearInterval(heartbeat);
    tracker?.delete(res);
    for (const fn of closers) fn();
  });
  return stream;
}

/** An event in SSE framing. */
export function sseFrame({ id, event, data }: { id?: string | number; event?: string; data: string }): string {
  let head = '';
  if (id !== undefined) head += `id: ${id}\n`;
  if (event) head += `event: ${event}\n`;
  return `${head}data: ${data.split('\n').join('\ndata: ')}\n\n`;
}

export function lastEventId(req: Request): string | undefined {
  const h = req.header('last-event-id');
  return h && h.trim() ? h.trim() : undefined;
}
