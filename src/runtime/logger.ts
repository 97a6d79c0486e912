// The process's logger. Lines go to stdout through an asynchronous destination: a synchronous one
// costs a write(2) per line, which at several thousand requests a second made the access log a third
// of an API process's CPU; the asynchronous one gathers the lines written while a write is in flight
// into one, and pino writes out what is left when the process exits (a SIGKILL loses only the lines
// not yet written, as it would lose the requests themselves).
import { pino, type Logger, type LoggerOptions } from 'pino';

export function processLogger(options: LoggerOptions): Logger {
  return pino(options, pino.destination({ dest: 1, sync: false }));
}
