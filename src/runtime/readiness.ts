// Readiness as /readyz answers it: every named check must pass; each says "ok" or why it failed.
export type Readiness = () => Promise<{ ok: boolean; checks: Record<string, string> }>;

export function readinessOf(checks: Record<string, (() => Promise<void>) | undefined>): Readiness {
  return async () => {
    const named = Object.entries(checks).filter((c): c is [string, () => Promise<void>] => c[1] !== undefined);
    const results = await Promise.all(named.map(async ([name, check]) => {
      try {
        await check();
        return [name, 'ok'] as const;
      } catch (e) {
        return [name, `failed: ${(e as Error).message}`] as const;
      }
    }));
    return { ok: results.every(([, r]) => r === 'ok'), checks: Object.fromEntries(results) };
  };
}
