// Gateway API durations (GEP-2257): up to four <number><unit> parts, units h, m, s, ms.
const UNIT_MS: Record<string, number> = { h: 3_600_000, m: 60_000, s: 1_000, ms: 1 };

/** Milliseconds, or undefined when the value is not a Gateway API duration. */
export function durationMillis(value: unknown): number | undefined {
  if (typeof value !== 'string' || !/^([0-9]{1,5}(h|m|s|ms)){1,4}$/.test(value)) return undefined;
  let total = 0;
  for (const m of value.matchAll(/([0-9]{1,5})(ms|h|m|s)/g)) total += Number(m[1]) * UNIT_MS[m[2]];
  return total;
}
