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
