// GET /readyz's answer: each dependency probed at once, each up or down with why, so that an
// operator (or a load balancer's log) sees which one is away rather than only "not ready".
import type { components } from '../../generated/api';

export type Readiness = components['schemas']['Readiness'];
type Dependency = Readiness['down'][number];

/** Probes that resolve when their dependency answers and reject with why not. */
export async function readinessOf(probes: Partial<Record<Dependency, () => Promise<void>>> & { postgres: () => Promise<void> }): Promise<Readiness> {
  const names = Object.keys(probes) as Dependency[];
  const results = await Promise.allSettled(names.map((n) => probes[n]!()));
  const checks = {} as Readiness['checks'];
  const down: Dependency[] = [];
  names.forEach((n, i) => {
    const r = results[i];
    if (r.status === 'fulfilled') checks[n] = { state: 'up' };
    else {
      down.push(n);
      const e = r.reason as { message?: string; code?: string } | undefined;
      // node's AggregateError (every address of a host refused) has an empty message
      checks[n] = { state: 'down', error: e?.message || e?.code || String(r.reason) };
    }
  });
  return { status: down.length ? 'not ready' : 'ready', checks, down };
}
