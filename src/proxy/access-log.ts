// JSON access log lines on stdout, one per request, with its request id (ACCESS_LOG=off silences it).
import { processLogger } from '../runtime/logger';

export interface AccessLog {
  /** request lines are written (ACCESS_LOG is not off): else a caller need not make their fields */
  readonly enabled: boolean;
  request(fields: Record<string, unknown>): void;
  info(fields: Record<string, unknown>, msg: string): void;
  error(fields: Record<string, unknown>, msg: string): void;
}

export function accessLog(enabled: boolean, level = 'info'): AccessLog {
  // asynchronous: a synchronous write per request would cost the proxy a syscall on every answer
  const log = processLogger({ level, base: { component: 'proxy' } });
  return {
    enabled,
    request: enabled ? (fields) => log.info(fields, 'request') : () => undefined,
    info: (fields, msg) => log.info(fields, msg),
    error: (fields, msg) => log.error(fields, msg),
  };
}
