// CEL rules of TLSRoute (v1, v1alpha3, v1alpha2), TCPRoute and UDPRoute (v1, v1alpha2).
import type { FieldError } from '../types';
import { arr, eachItem, fail, isObj, type Obj } from '../cel';
import { celIsIP } from '../formats';
import { safeRegex } from '../regex';
import { backendRefPort, parentRefs, uniqueRuleNames } from './refs';

const RFC1123 = safeRegex('^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*)$');

export interface L4Options {
  /** v1alpha2: up to 16 rules with unique names */
  ruleNames: boolean;
  /** TLSRoute v1 and v1alpha3: hostname checks */
  tlsHostnames: boolean;
}

export function l4RouteRules(obj: Obj, errors: FieldError[], opts: L4Options): void {
  const spec = obj.spec;
  if (!isObj(spec)) return;
  parentRefs(spec, 'spec', errors);
  if (opts.tlsHostnames && Array.isArray(spec.hostnames)) {
    const hosts = arr(spec.hostnames).filter((h): h is string => typeof h === 'string');
    if (!hosts.every((h) => !celIsIP(h))) fail(errors, 'spec.hostnames', 'array', 'Hostnames cannot contain an IP');
    if (!hosts.every((h) => (h.includes('*') ? true : RFC1123.test(h)))) {
      fail(errors, 'spec.hostnames', 'array', 'Hostnames must be valid based on RFC-1123');
    }
    if (!hosts.every((h) => (h.includes('*') ? h.startsWith('*.') && RFC1123.test(h.slice(2)) : true))) {
      fail(errors, 'spec.hostnames', 'array',
        'Wildcards on hostnames must be the first label, and the rest of hostname must be valid based on RFC-1123');
    }
  }
  if (opts.ruleNames) uniqueRuleNames(spec.rules, 'spec.rules', errors);
  eachItem(spec, 'rules', 'spec', (rule, path) => {
    eachItem(rule, 'backendRefs', path, (b, bp) => backendRefPort(b, bp, errors));
  });
}
