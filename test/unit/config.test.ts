// The configuration read from the environment: the address pool the operator gives Gateways.
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/env';

describe('SWITCHYARD_ADDRESS_POOL', () => {
  it('is a comma-separated list of IP addresses and hostnames, blanks and repeats dropped', () => {
    expect(loadConfig({}).addressPool).toEqual([]);
    expect(loadConfig({ SWITCHYARD_ADDRESS_POOL: ' 192.0.2.1, 2001:db8::1 ,,gw.example.com,192.0.2.1' }).addressPool)
      .toEqual(['192.0.2.1', '2001:db8::1', 'gw.example.com']);
  });
  it('refuses to start on an entry that is neither, naming it', () => {
    expect(() => loadConfig({ SWITCHYARD_ADDRESS_POOL: '192.0.2.1,not an address' })).toThrow(/"not an address" is neither an IP address nor a hostname/);
    expect(() => loadConfig({ SWITCHYARD_ADDRESS_POOL: '192.0.2.300' })).toThrow(/192\.0\.2\.300/);
  });
});
