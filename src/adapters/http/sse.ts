// Server-Sent Events plumbing shared by the events feed and snapshot watches.
import type { Request, Response } from 'express';

export interface SseStream {
  send(event: { id?: string | number; event?: string; data: string }): Promise<void>;
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
    async send({ id, event, data }) {
      if (stream.closed) return;
      let chunk = '';
      if (id !== undefined) chunk += `id: ${id}\n`;
      if (event) chunk += `event: ${event}\n`;
      for (const line of data.split('\n')) chunk += `data: ${line}\n`;
      chunk += '\n';
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

export function lastEventId(req: Request): string | undefined {
  const h = req.header('last-event-id');
  return h && h.trim() ? h.trim() : undefined;
}
