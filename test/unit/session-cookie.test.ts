// Cookie session persistence in the core: the compiled rule of the upcoming corpus's session case,
// resolve choosing by the session cookie (and by weight without one), and the cookie's value and
// timeouts.
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { ConformanceStore, CONTROLLER, NOW, loadBase, conformanceDir } from './conformance-requests-harness';
import { translate } from '../../src/core/translate';
import { resolve } from '../../src/core/resolve';
import { cookieValue, decodeSession, encodeSession, sessionAlive, setCookieHeader } from '../../src/core/session/cookie';

const upcoming = join(conformanceDir(), 'upcoming');
const gw = { namespace: 'gateway-conformance-infra', name: 'same-namespace' };

function tableWith(rule: any) {
  const store = new ConformanceStore();
  for (const o of [...loadBase(), ...loadBase(upcoming)]) store.apply(o);
  const c = JSON.parse(readFileSync(join(upcoming, 'cases', 'HTTPRouteSessionPersistenceCookie.json'), 'utf8'));
  const route = structuredClone(c.manifests[0]);
  route.spec.rules[0] = { ...route.spec.rules[0], ...rule };
  store.apply(route);
  return translate(store.world(), gw, { controllerName: CONTROLLER, now: NOW })!.table;
}

const ask = (cookie?: string) => ({ protocol: 'HTTP' as const, port: 80, path: '/session-persistence', ...(cookie ? { headers: { Cookie: cookie } } : {}) });

describe('cookie session persistence', () => {
  const two = {
    backendRefs: [{ name: 'infra-backend-v1', port: 8080, weight: 1 }, { name: 'infra-backend-v2', port: 8080, weight: 1 }],
  };

  it('a request without the cookie starts a session by weight; one presenting it resumes on its backend', () => {
    const table = tableWith(two);
    const sp = table.rules.find((r) => r.sessionPersistence)!.sessionPersistence!;
    const fresh = resolve(table, ask(), { random: 0.9 });
    expect(fresh.forwarded).toBe(true);
    expect(fresh.session).toEqual({ cookieName: sp.cookieName, lifetime: 'Session', resumed: false });
    expect(fresh.backends[fresh.chosenBackend!].name).toBe('infra-backend-v2');
    // the weighted draw would pick v2; the session cookie keeps v1
    const value = encodeSession({ backend: 'gateway-conformance-infra/infra-backend-v1:8080', started: 100, used: 100 });
    const kept = resolve(table, ask(`other=1; ${sp.cookieName}=${value}`), { random: 0.9 });
    expect(kept.session?.resumed).toBe(true);
    expect(kept.backends[kept.chosenBackend!].name).toBe('infra-backend-v1');
    expect(kept.explanation.join(' ')).toContain('the session is resumed');
  });

  it('a cookie naming a backend no longer weighted, an unknown backend or garbage starts a new session', () => {
    const table = tableWith({ backendRefs: [{ name: 'infra-backend-v1', port: 8080, weight: 0 }, { name: 'infra-backend-v2', port: 8080, weight: 1 }] });
    const name = table.rules.find((r) => r.sessionPersistence)!.sessionPersistence!.cookieName;
    for (const v of [encodeSession({ backend: 'gateway-conformance-infra/infra-backend-v1:8080', started: 1, used: 1 }),
      encodeSession({ backend: 'elsewhere/web:80', started: 1, used: 1 }), 'not-a-session']) {
      const r = resolve(table, ask(`${name}=${v}`), { random: 0.1 });
      expect(r.session?.resumed, v).toBe(false);
      expect(r.backends[r.chosenBackend!].name).toBe('infra-backend-v2');
    }
  });

  it('a session past its absolute timeout is not resumed when the caller has a clock', () => {
    const table = tableWith({ ...two, sessionPersistence: { type: 'Cookie', absoluteTimeout: '10s', cookie: { lifetimeType: 'Permanent' } } });
    const sp = table.rules.find((r) => r.sessionPersistence)!.sessionPersistence!;
    const value = encodeSession({ backend: 'gateway-conformance-infra/infra-backend-v1:8080', started: 1000, used: 1005 });
    expect(resolve(table, ask(`${sp.cookieName}=${value}`), { random: 0.9, nowSeconds: 1009 }).session?.resumed).toBe(true);
    expect(resolve(table, ask(`${sp.cookieName}=${value}`), { random: 0.9, nowSeconds: 1010 }).session?.resumed).toBe(false);
    expect(setCookieHeader(sp, { backend: 'b', started: 1000, used: 1004 })).toMatch(/; Max-Age=6$/);
  });

  it('encodes and reads the cookie', () => {
    const v = { backend: 'ns/a:80', endpoint: '10.0.0.1:8080', started: 5, used: 9 };
    expect(decodeSession(encodeSession(v))).toEqual(v);
    expect(cookieValue('a=1; sy=abc; b=2', 'sy')).toBe('abc');
    expect(cookieValue('a=1', 'sy')).toBeUndefined();
    const sp = { cookieName: 'sy', path: '/', lifetime: 'Session' as const, idleTimeoutSeconds: 5 };
    expect(sessionAlive(sp, { ...v, used: 9 }, 13)).toBe(true);
    expect(sessionAlive(sp, { ...v, used: 9 }, 14)).toBe(false);
    expect(setCookieHeader(sp, v)).not.toMatch(/Max-Age|Expires/i);
  });
});
