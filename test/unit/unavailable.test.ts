// Which errors are an outage of PostgreSQL (a 503 with Retry-After) and which are not (they keep
// their own answers): the driver's own errors where they can be had here, and the codes the server
// sends while it shuts down or starts.
import { expect, it } from 'vitest';
import pg from 'pg';
import { isDatabaseUnavailable } from '../../src/adapters/store/unavailable';

it('a refused connection is unavailable, also wrapped as Prisma wraps it', async () => {
  const c = new pg.Client({ host: '127.0.0.1', port: 1, user: 'postgres' });
  const err = await c.connect().then(() => null, (e: unknown) => e);
  expect(isDatabaseUnavailable(err)).toBe(true);
  expect(isDatabaseUnavailable(Object.assign(new Error('driver adapter error'), { cause: err }))).toBe(true);
});

it('the server going away or starting up is unavailable; a statement it refused is not', () => {
  const server = (code: string, message: string) => Object.assign(new Error(message), { code });
  expect(isDatabaseUnavailable(server('57P01', 'terminating connection due to administrator command'))).toBe(true);
  expect(isDatabaseUnavailable(server('57P03', 'the database system is starting up'))).toBe(true);
  expect(isDatabaseUnavailable(server('08006', 'connection failure'))).toBe(true);
  expect(isDatabaseUnavailable(new Error('Connection terminated unexpectedly'))).toBe(true);
  expect(isDatabaseUnavailable(server('23505', 'duplicate key value violates unique constraint'))).toBe(false);
  expect(isDatabaseUnavailable(server('40P01', 'deadlock detected'))).toBe(false);
  expect(isDatabaseUnavailable(server('22003', 'value "9223372036854775808" is out of range for type integer'))).toBe(false);
  expect(isDatabaseUnavailable(undefined)).toBe(false);
});
