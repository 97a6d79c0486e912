// Server-Sent Events plumbing shared by the events feed and snapshot watches.
import type { Request, Response } from 'express';
import { textOfPieces, type TextPiece } from '../../core/snapshot/format';

export interface SseStream {
  send(event: { id?: string | number; event?: string; data: string }): Promise<void>;
  /** one event already framed (see sseFrame): the same frame can go to many streams */
  sendFrame(frame: string | Buffer): Promise<void>;
  comment(text: string): void;
  closed: boolean;
  onClose(fn: () => void): void;
  end(): void;
}

export const HEARTBEAT_MS = 15_000;

/**
 * Starts a long-lived streamed answer (an SSE stream, a Kubernetes watch): the head goes out at
 * once and unbuffered by a proxy in front, each write leaves without Nagle's delay, the socket never
 * idles out, and `tracker` holds the answer so that a shutdown can end it.
 */
export function startStream(req: Request, res: Response, headers: Record<string, string>, tracker?: Set<Response>): void {
  res.status(200);
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  res.setHeader('X-Accel-Buffering', 'no');
  res.flushHeaders();
  req.socket.setNoDelay(true);
  req.socket.setTimeout(0);
  tracker?.add(res);
}

export function openSse(req: Request, res: Response, tracker?: Set<Response>): SseStream {
  startStream(req, res, { 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-cache, no-transform', Connection: 'keep-alive' }, tracker);
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

/**
 * The frame of an event whose data is one line (JSON text), as bytes written straight from the
 * data's pieces. A whole snapshot (6 MB at 5,000 routes, 60 MB at 50,000) is so encoded once:
 * joining it into one string first (sseFrame, then the bytes) copied it three times more, and a
 * copy into fresh memory costs some 15-20 ms per 6 MB here, nearly all of it page faults. Data
 * that holds a line break is framed by sseFrame.
 */
export function sseLineFrame(ev: { id?: string | number; event?: string }, pieces: readonly TextPiece[]): Buffer {
  if (pieces.some((p) => p.text.includes('\n'))) return Buffer.from(sseFrame({ ...ev, data: textOfPieces(pieces) }));
  let head = '';
  if (ev.id !== undefined) head += `id: ${ev.id}\n`;
  if (ev.event) head += `event: ${ev.event}\n`;
  head += 'data: ';
  const bytes = pieces.reduce((n, p) => n + Buffer.byteLength(p.text), Buffer.byteLength(head) + 2);
  const out = Buffer.allocUnsafe(bytes);
  let at = out.write(head);
  for (const p of pieces) at += out.write(p.text, at) - (p.drop ?? 0);
  at += out.write('\n\n', at);
  return out.subarray(0, at);
}

export function lastEventId(req: Request): string | undefined {
  const h = req.header('last-event-id');
  return h && h.trim() ? h.trim() : undefined;
}
