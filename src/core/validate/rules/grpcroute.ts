// CEL rules of GRPCRoute (v1), experimental channel.
import { child } from '../messages';
import type { FieldError } from '../types';
import { eachItem, fail, has, isObj, type Obj } from '../cel';
import { safeRegex } from '../regex';
import { grpcFilters } from './filters';
import { sessionPersistence } from './httproute';
import { backendRefPort, parentRefs, uniqueRuleNames } from './refs';

const SERVICE = safeRegex('^\\.?[a-z_][a-z_0-9]*(\\.[a-z_][a-z_0-9]*)*$', 'i'); // upstream: ^(?i)\.?[a-z_]...
const METHOD = safeRegex('^[A-Za-z_][A-Za-z_0-9]*$');

export function grpcRouteRules(obj: Obj, errors: FieldError[]): void {
  const spec = obj.spec;
  if (!isObj(spec)) return;
  parentRefs(spec, 'spec', errors);
  const rules = spec.rules;
  if (!Array.isArray(rules)) return;
  let total = 0;
  for (const r of rules.slice(0, 16)) if (isObj(r) && Array.isArray(r.matches)) total += r.matches.length;
  if (total > 128) {
    fail(errors, 'spec.rules', 'array',
      'While 16 rules and 64 matches per rule are allowed, the total number of matches across all rules in a route must be less than 128');
  }
  uniqueRuleNames(rules, 'spec.rules', errors);
  eachItem(spec, 'rules', 'spec', (rule, path) => {
    eachItem(rule, 'matches', path, (m, mp) => {
      if (isObj(m.method)) methodMatch(m.method, child(mp, 'method'), errors);
    });
    grpcFilters(rule, path, errors);
    eachItem(rule, 'backendRefs', path, (b, bp) => {
      backendRefPort(b, bp, errors);
      grpcFilters(b, bp, errors);
    });
    if (isObj(rule.sessionPersistence)) sessionPersistence(rule.sessionPersistence, child(path, 'sessionPersistence'), errors);
  });
}

function methodMatch(m: Obj, path: string, errors: FieldError[]): void {
  if (has(m, 'type') && !has(m, 'service') && !has(m, 'method')) {
    fail(errors, path, 'object', "One or both of 'service' or 'method' must be specified");
  }
  const exact = !has(m, 'type') || m.type === 'Exact';
  if (exact && typeof m.service === 'string' && !SERVICE.test(m.service)) {
    fail(errors, path, 'object', 'service must only contain valid characters (matching ^(?i)\\.?[a-z_][a-z_0-9]*(\\.[a-z_][a-z_0-9]*)*$)');
  }
  if (exact && typeof m.method === 'string' && !METHOD.test(m.method)) {
    fail(errors, path, 'object', 'method must only contain valid characters (matching ^[A-Za-z_][A-Za-z_0-9]*$)');
  }
}
