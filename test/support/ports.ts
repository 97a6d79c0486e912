// TEST_PORT_RANGE=LO-HI: the ports the tests choose themselves (services, gateway listeners through a
// port offset) stay in that range, for a machine where several runs share the loopback interface.
// Ports the system hands out (listen on 0) are not concerned.
export function testPortRange(): [number, number] | undefined {
  const m = /^(\d+)-(\d+)$/.exec(process.env.TEST_PORT_RANGE ?? '');
  if (!m) return undefined;
  const lo = Number(m[1]);
  const hi = Number(m[2]);
  return lo > 0 && hi <= 65535 && lo < hi ? [lo, hi] : undefined;
}

/** A port to try: in TEST_PORT_RANGE when set, else in [from, from + span). */
export function pickPort(from: number, span: number): number {
  const r = testPortRange();
  return r ? r[0] + Math.floor(Math.random() * (r[1] - r[0] + 1)) : from + Math.floor(Math.random() * span);
}
