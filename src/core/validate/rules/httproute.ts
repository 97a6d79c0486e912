// CEL rules of HTTPRoute (v1, v1beta1), experimental channel.
import { child } from '../messages';
import type { FieldError } from '../types';
import { arr, eachItem, evalError, existsOne, fail, has, isObj, parseGoDuration, type Obj } from '../cel';
import { safeRegex } from '../regex';
import { httpFilters } from './filters';
import { backendRefPort, parentRefs, uniqueRuleNames } from './refs';

const MATCH_TOTAL =
  'While 16 rules and 64 matches per rule are allowed, the total number of matches across all rules in a route must be less than 128';
const PATH_CHARS = safeRegex("^(?:[-A-Za-z0-9/._~!$&'()*+,;=:@]|[%][0-9a-fA-F]{2})+$");

export function httpRouteRules(obj: Obj, errors: FieldError[]): void {
  const spec = obj.spec;
  if (!isObj(spec)) return;
  parentRefs(spec, 'spec', errors);
  const rules = spec.rules;
  if (!Array.isArray(rules)) return;
  const rp = 'spec.rules';
  // `self[i].matches.size()` for the first 16 rules, `<= 128` (the message says "less than")
  let total = 0;
  let missing = false;
  for (const r of rules.slice(0, 16)) {
    if (isObj(r) && Array.isArray(r.matches)) total += r.matches.length;
    else missing = true;
  }
  if (missing) evalError(errors, rp, 'array', 'no such key: matches', MATCH_TOTAL);
  else if (total > 128) fail(errors, rp, 'array', MATCH_TOTAL);
  uniqueRuleNames(rules, rp, errors);
  eachItem(spec, 'rules', 'spec', (rule, path) => httpRule(rule, path, errors));
}

/** `f.requestRedirect.path.type == 'ReplacePrefixMatch' && has(...replacePrefixMatch)` and the same for urlRewrite */
function prefixRewrite(f: unknown, member: 'requestRedirect' | 'urlRewrite'): boolean {
  if (!isObj(f) || !isObj(f[member])) return false;
  const p = f[member].path;
  return isObj(p) && p.type === 'ReplacePrefixMatch' && has(p, 'replacePrefixMatch');
}

const MSG_REDIRECT = 'When using RequestRedirect filter with path.replacePrefixMatch, exactly one PathPrefix match must be specified';
const MSG_REWRITE = 'When using URLRewrite filter with path.replacePrefixMatch, exactly one PathPrefix match must be specified';
const MSG_BACKEND_REDIRECT =
  'Within backendRefs, when using RequestRedirect filter with path.replacePrefixMatch, exactly one PathPrefix match must be specified';
const MSG_BACKEND_REWRITE =
  'Within backendRefs, When using URLRewrite filter with path.replacePrefixMatch, exactly one PathPrefix match must be specified';

function isPrefixRedirect(f: unknown): boolean {
  return prefixRewrite(f, 'requestRedirect');
}
function isPrefixRewrite(f: unknown): boolean {
  return prefixRewrite(f, 'urlRewrite');
}
function backendWithPrefixRedirect(b: unknown): boolean {
  return has(b, 'filters') && existsOne(arr((b as Obj).filters), isPrefixRedirect);
}
function backendWithPrefixRewrite(b: unknown): boolean {
  return has(b, 'filters') && existsOne(arr((b as Obj).filters), isPrefixRewrite);
}

/** `(size(self.matches) != 1 || !has(self.matches[0].path) || self.matches[0].path.type != 'PathPrefix') ? false : true` */
function prefixRule(rule: Obj, path: string, errors: FieldError[], message: string): void {
  const m = rule.matches;
  if (!Array.isArray(m)) return evalError(errors, path, 'object', 'no such key: matches', message);
  const ok = m.length === 1 && isObj(m[0]) && has(m[0], 'path') && m[0].path?.type === 'PathPrefix';
  if (!ok) fail(errors, path, 'object', message);
}

function httpRule(rule: Obj, path: string, errors: FieldError[]): void {
  const filters = arr(rule.filters);
  const backendRefs = arr(rule.backendRefs);
  if (backendRefs.length > 0 && has(rule, 'filters') && !filters.every((f) => !has(f, 'requestRedirect'))) {
    fail(errors, path, 'object', 'RequestRedirect filter must not be used together with backendRefs');
  }
  const hasFilters = has(rule, 'filters');
  const hasBackends = has(rule, 'backendRefs');
  if (hasFilters && existsOne(filters, isPrefixRedirect)) prefixRule(rule, path, errors, MSG_REDIRECT);
  if (hasFilters && existsOne(filters, isPrefixRewrite)) prefixRule(rule, path, errors, MSG_REWRITE);
  if (hasBackends && existsOne(backendRefs, backendWithPrefixRedirect)) prefixRule(rule, path, errors, MSG_BACKEND_REDIRECT);
  if (hasBackends && existsOne(backendRefs, backendWithPrefixRewrite)) prefixRule(rule, path, errors, MSG_BACKEND_REWRITE);

  eachItem(rule, 'matches', path, (m, mp) => {
    if (isObj(m.path)) pathMatch(m.path, child(mp, 'path'), errors);
  });
  httpFilters(rule, path, errors);
  eachItem(rule, 'backendRefs', path, (b, bp) => {
    backendRefPort(b, bp, errors);
    httpFilters(b, bp, errors);
  });
  if (isObj(rule.timeouts)) timeouts(rule.timeouts, child(path, 'timeouts'), errors);
  if (isObj(rule.sessionPersistence)) sessionPersistence(rule.sessionPersistence, child(path, 'sessionPersistence'), errors);
}

function pathMatch(p: Obj, path: string, errors: FieldError[]): void {
  const exactOrPrefix = p.type === 'Exact' || p.type === 'PathPrefix';
  const v = p.value;
  if (exactOrPrefix && typeof v === 'string') {
    const when = " when type one of ['Exact', 'PathPrefix']";
    if (!v.startsWith('/')) fail(errors, path, 'object', "value must be an absolute path and start with '/'" + when);
    for (const s of ['//', '/./', '/../', '%2f', '%2F', '#']) {
      if (v.includes(s)) fail(errors, path, 'object', `must not contain '${s}'${when}`);
    }
    if (v.endsWith('/..')) fail(errors, path, 'object', `must not end with '/..'${when}`);
    if (v.endsWith('/.')) fail(errors, path, 'object', `must not end with '/.'${when}`);
  }
  if (!(exactOrPrefix || p.type === 'RegularExpression')) {
    fail(errors, path, 'object', "type must be one of ['Exact', 'PathPrefix', 'RegularExpression']");
  }
  if (exactOrPrefix && typeof v === 'string' && !PATH_CHARS.test(v)) {
    fail(
      errors, path, 'object',
      "must only contain valid characters (matching ^(?:[-A-Za-z0-9/._~!$&'()*+,;=:@]|[%][0-9a-fA-F]{2})+$) for types ['Exact', 'PathPrefix']",
    );
  }
}

function timeouts(t: Obj, path: string, errors: FieldError[]): void {
  const message = 'backendRequest timeout cannot be longer than request timeout';
  if (!has(t, 'request') || !has(t, 'backendRequest')) return;
  const request = parseGoDuration(String(t.request));
  if (request === undefined) return evalError(errors, path, 'object', `invalid duration ${JSON.stringify(t.request)}`, message);
  if (request === 0) return;
  const backend = parseGoDuration(String(t.backendRequest));
  if (backend === undefined) return evalError(errors, path, 'object', `invalid duration ${JSON.stringify(t.backendRequest)}`, message);
  if (backend > request) fail(errors, path, 'object', message);
}

export function sessionPersistence(s: Obj, path: string, errors: FieldError[]): void {
  const cookie = s.cookie;
  if (has(s, 'cookie') && has(cookie, 'lifetimeType') && cookie.lifetimeType === 'Permanent' && !has(s, 'absoluteTimeout')) {
    fail(errors, path, 'object', 'AbsoluteTimeout must be specified when cookie lifetimeType is Permanent');
  }
  if (has(s, 'cookie') && s.type !== 'Cookie') fail(errors, path, 'object', 'cookie must be nil if type is not Cookie');
  if (s.type === 'Cookie' && !has(s, 'cookie')) fail(errors, path, 'object', 'cookie must be specified for Cookie type');
  if (has(s, 'header') && s.type !== 'Header') fail(errors, path, 'object', 'header must be nil if type is not Header');
  if (s.type === 'Header' && !has(s, 'header')) fail(errors, path, 'object', 'header must be specified for Header type');
}

