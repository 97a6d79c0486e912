// Which ports a proxy binds for a table, and how a swap binds and releases them: TCP-family
// listeners of one port share a server by kind (HTTP, the TLS front for HTTPS and TLS, TCP), UDP
// ports are apart from TCP ones of the same number, a port that cannot be bound undoes the swap's
// other binds, and a port no longer wanted is released only when the release step runs.
import { describe, expect, it } from 'vitest';
import { PortBindError, Ports } from '../../src/proxy/ports';
import type { PortKind, PortServer } from '../../src/proxy/listener-servers';
import type { CompiledListener, CompiledTable } from '../../src/core/compile/types';

function table(listeners: Partial<CompiledListener>[]): CompiledTable {
  return {
    format: 'switchyard.dev/compiled-table/v1', gateway: { namespace: 'ns', name: 'gw' }, infrastructure: { labels: {}, annotations: {} },
    listeners: listeners.map((l, i) => ({ name: `l${i}`, port: 80, protocol: 'HTTP', valid: true, ...l })), routes: [], rules: [], unattached: [],
  };
}

/** Servers that record what happens to them; `taken` local ports cannot be bound. */
function fakes(taken: number[] = []) {
  const events: string[] = [];
  const make = (_gateway: string, port: number, kind: PortKind): PortServer => ({
    kind,
    listen: async (local) => {
      if (taken.includes(local)) throw new Error(`cannot listen on ${local}: EADDRINUSE`);
      events.push(`bind ${port}/${kind}`);
    },
    close: () => void events.push(`close ${port}/${kind}`),
    closeIdleConnections: () => undefined,
    closeAllConnections: () => undefined,
  });
  return { events, make };
}

describe('the ports a proxy binds', () => {
  it('gives one server per TCP port by kind, UDP ports apart, and names the listeners it cannot serve', () => {
    const { ports, unserved } = Ports.wanted(table([
      { port: 80, protocol: 'HTTP' },
      { port: 443, protocol: 'HTTPS' },
      { port: 443, protocol: 'TLS' },
      { port: 53, protocol: 'TCP' },
      { port: 53, protocol: 'UDP' },
      { port: 80, protocol: 'TCP', name: 'clash' },
      { port: 9, protocol: 'SCTP', name: 'odd' },
      { port: 8080, protocol: 'HTTP', valid: false },
    ]));
    expect(Object.fromEntries([...ports].map(([k, w]) => [k, `${w.port} ${w.kind}`]))).toEqual({ 80: '80 http', 443: '443 tls', 53: '53 tcp', '53/udp': '53 udp' });
    expect(unserved).toEqual(['clash (TCP 80)', 'odd (SCTP 9)']);
  });

  it('binds what a table adds, releases what it drops only when told, and undoes its binds when one port is taken', async () => {
    const { events, make } = fakes([1000 + 90]);
    const ports = new Ports('127.0.0.1', 1000, make);
    const release = await ports.prepare('ns/gw', Ports.wanted(table([{ port: 80 }, { port: 53, protocol: 'UDP' }])).ports);
    release();
    expect(events.splice(0)).toEqual(['bind 53/udp', 'bind 80/http']);
    expect(ports.list().map((p) => `${p.port}->${p.local}/${p.kind}`).sort()).toEqual(['53->1053/udp', '80->1080/http']);

    const next = Ports.wanted(table([{ port: 80 }, { port: 81 }, { port: 90, protocol: 'TCP' }])).ports;
    await expect(ports.prepare('ns/gw', next)).rejects.toBeInstanceOf(PortBindError);
    expect(events.splice(0)).toEqual(['bind 81/http', 'close 81/http']);
    expect(ports.list()).toHaveLength(2);

    const dropUdp = await ports.prepare('ns/gw', Ports.wanted(table([{ port: 80 }])).ports);
    expect(events).toEqual([]);
    dropUdp();
    expect(events.splice(0)).toEqual(['close 53/udp']);
  });

  it('refuses a port another Gateway of the same proxy serves', async () => {
    const { make } = fakes();
    const ports = new Ports('127.0.0.1', 0, make);
    (await ports.prepare('ns/a', Ports.wanted(table([{ port: 80 }])).ports))();
    await expect(ports.prepare('ns/b', Ports.wanted(table([{ port: 80 }])).ports)).rejects.toThrow('port 80 is already served for Gateway ns/a');
  });
});
