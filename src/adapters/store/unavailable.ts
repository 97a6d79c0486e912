// Whether an error says PostgreSQL could not be reached or went away (an outage, a restart, a
// failover), as opposed to a statement it refused. The driver reports the first as socket errors
// or its own messages; the server, while it shuts down or starts up, as SQLSTATE classes 08 and 57P.
// Prisma wraps either, so the causes are walked too.
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNABORTED']);
const SERVER_CODES = /^(08...|57P0[1-4]|53300)$/;
const DRIVER_MESSAGES = /Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error|the database system is (starting up|shutting down|in recovery mode)|Can't reach database server|server closed the connection unexpectedly/i;

export function isDatabaseUnavailable(err: unknown): boolean {
  const seen = new Set<unknown>();
  let e = err as { code?: unknown; message?: unknown; cause?: unknown; errors?: unknown[] } | undefined;
  while (e && typeof e === 'object' && !seen.has(e)) {
    seen.add(e);
    const code = typeof e.code === 'string' ? e.code : '';
    if (SOCKET_CODES.has(code) || SERVER_CODES.test(code)) return true;
    if (typeof e.message === 'string' && DRIVER_MESSAGES.test(e.message)) return true;
    // a host with several addresses: node's AggregateError of one failed attempt each
    if (Array.isArray(e.errors) && e.errors.some((x) => isDatabaseUnavailable(x))) return true;
    e = e.cause as typeof e;
  }
  return false;
}
