// Binding a port, with the two failures an operator can fix told in one line instead of a stack.
import type { Server } from 'node:net';
import { StartupError } from './startup-error';

export function listen(server: Server, port: number, host: string | undefined, setting = 'PORT'): Promise<void> {
  return new Promise<void>((res, rej) => {
    const failed = (e: NodeJS.ErrnoException) => {
      if (e.code === 'EADDRINUSE') rej(new StartupError(`port ${port}${host ? ` on ${host}` : ''} is in use by another process: stop it, or set ${setting}`));
      else if (e.code === 'EACCES') rej(new StartupError(`port ${port} needs privileges this process does not have: set ${setting} to 1024 or above`));
      else rej(e);
    };
    server.once('error', failed);
    server.listen(port, host, () => {
      server.off('error', failed);
      res();
    });
  });
}

/**
 * Binds the first free port of `port`, `port`+1, ... (`count` of them), for a default that several
 * processes on one machine share (the worker's 9091): the port taken, which the caller logs.
 */
export async function listenFirstFree(server: Server, port: number, host: string | undefined, count: number, setting: string): Promise<number> {
  for (let p = port; ; p++) {
    try {
      await listen(server, p, host, setting);
      return p;
    } catch (e) {
      if (!(e instanceof StartupError) || !/is in use/.test(e.message)) throw e;
      if (p >= port + count - 1) throw new StartupError(`ports ${port} to ${p}${host ? ` on ${host}` : ''} are all in use: set ${setting}`);
    }
  }
}
