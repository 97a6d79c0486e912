// The Envoy translation's pieces where a mistake would pass the goldens unnoticed: the
// protoc-gen-validate checks catch what Envoy refuses in the messages it makes, and rewrites
// replace the matched prefix as the reference's replacePrefix does.
import { describe, expect, it } from 'vitest';
import { encodeMessage } from '../../src/adapters/grpc/xds-protos';
import { pgvViolations } from '../../src/adapters/grpc/pgv';
import { TYPE_URL } from '../../src/core/xds/types';
import { pathRewrite } from '../../src/core/xds/envoy/filters';
import { listenerForDomain, sortDomains } from '../../src/core/xds/envoy/hosts';
import { replacePrefix } from '../../src/core/match/path';
import { regexFullMatch } from '../../src/core/match/regex';

const violations = (kind: keyof typeof TYPE_URL, msg: object) => pgvViolations(TYPE_URL[kind], encodeMessage(TYPE_URL[kind], msg));

describe('the protoc-gen-validate checks on Envoy resources', () => {
  it('a tcp_proxy without a cluster, a prefix ending in "/", an empty server name', () => {
    const v = violations('listener', {
      name: 'l',
      address: { socket_address: { address: '0.0.0.0', port_value: 80 } },
      filter_chains: [{
        filter_chain_match: { server_names: ['a.example'] },
        filters: [{ name: 'envoy.filters.network.tcp_proxy', typed_config: { '@type': 'type.googleapis.com/envoy.extensions.filters.network.tcp_proxy.v3.TcpProxy', stat_prefix: 's' } }],
      }],
    });
    expect(v.join('\n')).toMatch(/TcpProxy>: one of cluster, weighted_clusters.* is required/);
    const r = violations('route', { name: 'r', virtual_hosts: [{ name: 'v', domains: ['*'], routes: [{ match: { path_separated_prefix: '/api/' }, route: { cluster: 'c' } }] }] });
    expect(r.join('\n')).toMatch(/path_separated_prefix: "\/api\/" breaks string.pattern/);
  });
  it('weighted clusters without an entry, a header name with a line break', () => {
    const r = violations('route', {
      name: 'r',
      virtual_hosts: [{
        name: 'v', domains: ['*'],
        routes: [{ match: { prefix: '/' }, request_headers_to_add: [{ header: { key: 'bad\nname', value: 'x' } }], route: { weighted_clusters: { clusters: [] } } }],
      }],
    });
    expect(r.join('\n')).toMatch(/clusters: 0 items breaks repeated.min_items 1/);
    expect(r.join('\n')).toMatch(/key: "bad\\nname" breaks string.well_known_regex/);
  });
});

/** What Envoy does with a rewrite: prefix_rewrite replaces the matched prefix; regex_rewrite substitutes the first match. */
function envoyRewrite(rw: Record<string, any>, path: string, matched: string): string {
  if (rw.prefix_rewrite !== undefined) return rw.prefix_rewrite + path.slice(matched.replace(/\/+$/, '').length);
  const re = new RegExp(rw.regex_rewrite.pattern.regex);
  return path.replace(re, rw.regex_rewrite.substitution);
}

describe('ReplacePrefixMatch as Envoy rewrites it', () => {
  const cases: [string, string, string][] = [
    ['/foo', '/foo/bar', '/xyz'], ['/foo', '/foo', '/xyz'], ['/foo', '/foo/bar', '/'], ['/foo/', '/foo/bar', '/xyz/'],
    ['/foo', '/foo', '/'], ['/', '/a/b', '/x'], ['/', '/a', ''], ['/foo', '/foo//bar', '/'],
  ];
  for (const [prefix, path, to] of cases) {
    it(`${prefix} -> ${to || '""'} on ${path}`, () => {
      const rw = pathRewrite({ type: 'ReplacePrefixMatch', value: to }, prefix);
      expect(envoyRewrite(rw, path, prefix)).toBe(replacePrefix(path, prefix, to));
    });
  }
  it('ReplaceFullPath replaces the whole path (an RE2 pattern)', () => {
    const rw = pathRewrite({ type: 'ReplaceFullPath', value: '/new' }, '/foo');
    expect(regexFullMatch((rw.regex_rewrite as { pattern: { regex: string } }).pattern.regex, '/foo/bar')).toBe(true);
    expect(envoyRewrite(rw, '/foo/bar', '/foo')).toBe('/new');
  });
});

describe('host domains', () => {
  it('sort as Envoy matches them: exact, longer wildcards, then the catch-all', () => {
    expect(sortDomains(['', '*.example.com', 'a.example.com', '*.b.example.com', 'example.com'])).toEqual(['a.example.com', 'example.com', '*.b.example.com', '*.example.com', '']);
  });
  it('select the listener the hosts of a domain select', () => {
    const ls = [{ hostname: undefined }, { hostname: '*.example.com' }, { hostname: 'a.example.com' }];
    expect(listenerForDomain(ls, 'a.example.com')).toBe(ls[2]);
    expect(listenerForDomain(ls, '*.b.example.com')).toBe(ls[1]);
    expect(listenerForDomain(ls, 'example.com')).toBe(ls[0]);
    expect(listenerForDomain(ls, '')).toBe(ls[0]);
    expect(listenerForDomain(ls.slice(1), '')).toBeUndefined();
  });
});
