// CEL rules of HTTPRoute and GRPCRoute filters (rule-level and backendRef-level lists are the same schema).
import { child, index } from '../messages';
import type { FieldError } from '../types';
import { arr, fail, has, isObj, type Obj } from '../cel';
import { backendRefPort } from './refs';

const HTTP_MEMBERS: [string, string][] = [
  ['cors', 'CORS'],
  ['requestHeaderModifier', 'RequestHeaderModifier'],
  ['responseHeaderModifier', 'ResponseHeaderModifier'],
  ['requestMirror', 'RequestMirror'],
  ['requestRedirect', 'RequestRedirect'],
  ['urlRewrite', 'URLRewrite'],
  ['extensionRef', 'ExtensionRef'],
  ['externalAuth', 'ExternalAuth'],
];
const GRPC_MEMBERS: [string, string][] = [
  ['requestHeaderModifier', 'RequestHeaderModifier'],
  ['responseHeaderModifier', 'ResponseHeaderModifier'],
  ['requestMirror', 'RequestMirror'],
  ['extensionRef', 'ExtensionRef'],
];
const HTTP_UNREPEATABLE = ['CORS', 'RequestHeaderModifier', 'ResponseHeaderModifier', 'RequestRedirect', 'URLRewrite'];
const GRPC_UNREPEATABLE = ['RequestHeaderModifier', 'ResponseHeaderModifier'];

export function httpFilters(owner: Obj, path: string, errors: FieldError[]): void {
  filterList(owner, path, errors, HTTP_MEMBERS, HTTP_UNREPEATABLE, true);
}

export function grpcFilters(owner: Obj, path: string, errors: FieldError[]): void {
  filterList(owner, path, errors, GRPC_MEMBERS, GRPC_UNREPEATABLE, false);
}

function filterList(
  owner: Obj, path: string, errors: FieldError[], members: [string, string][], unrepeatable: string[], http: boolean,
): void {
  if (!Array.isArray(owner.filters)) return;
  const list = owner.filters as Obj[];
  const lp = child(path, 'filters');
  if (http && countType(list, 'RequestRedirect') > 0 && countType(list, 'URLRewrite') > 0) {
    fail(errors, lp, 'array', 'May specify either httpRouteFilterRequestRedirect or httpRouteFilterRequestRewrite, but not both');
  }
  for (const t of unrepeatable) if (countType(list, t) > 1) fail(errors, lp, 'array', `${t} filter cannot be repeated`);
  for (let i = 0; i < list.length; i++) {
    const f = list[i];
    if (!isObj(f)) continue;
    const fp = index(lp, i);
    for (const [member, type] of members) {
      if (has(f, member) && f.type !== type) fail(errors, fp, 'object', `filter.${member} must be nil if the filter.type is not ${type}`);
      if (!has(f, member) && f.type === type) fail(errors, fp, 'object', `filter.${member} must be specified for ${type} filter.type`);
    }
    if (isObj(f.requestMirror)) mirror(f.requestMirror, child(fp, 'requestMirror'), errors);
    if (http) {
      if (isObj(f.requestRedirect) && isObj(f.requestRedirect.path)) {
        pathModifier(f.requestRedirect.path, child(child(fp, 'requestRedirect'), 'path'), errors);
      }
      if (isObj(f.urlRewrite) && isObj(f.urlRewrite.path)) {
        pathModifier(f.urlRewrite.path, child(child(fp, 'urlRewrite'), 'path'), errors);
      }
      if (isObj(f.cors)) cors(f.cors, child(fp, 'cors'), errors);
      if (isObj(f.externalAuth)) externalAuth(f.externalAuth, child(fp, 'externalAuth'), errors);
    }
  }
}

function countType(list: unknown[], type: string): number {
  let n = 0;
  for (const f of list) if (isObj(f) && f.type === type) n++;
  return n;
}

function mirror(m: Obj, path: string, errors: FieldError[]): void {
  if (has(m, 'percent') && has(m, 'fraction')) {
    fail(errors, path, 'object', 'Only one of percent or fraction may be specified in HTTPRequestMirrorFilter');
  }
  const fr = m.fraction;
  if (isObj(fr) && typeof fr.numerator === 'number' && typeof fr.denominator === 'number' && !(fr.numerator <= fr.denominator)) {
    fail(errors, child(path, 'fraction'), 'object', 'numerator must be less than or equal to denominator');
  }
  if (isObj(m.backendRef)) backendRefPort(m.backendRef, child(path, 'backendRef'), errors);
}

function pathModifier(p: Obj, path: string, errors: FieldError[]): void {
  if (p.type === 'ReplaceFullPath' && !has(p, 'replaceFullPath')) {
    fail(errors, path, 'object', "replaceFullPath must be specified when type is set to 'ReplaceFullPath'");
  }
  if (has(p, 'replaceFullPath') && p.type !== 'ReplaceFullPath') {
    fail(errors, path, 'object', "type must be 'ReplaceFullPath' when replaceFullPath is set");
  }
  if (p.type === 'ReplacePrefixMatch' && !has(p, 'replacePrefixMatch')) {
    fail(errors, path, 'object', "replacePrefixMatch must be specified when type is set to 'ReplacePrefixMatch'");
  }
  if (has(p, 'replacePrefixMatch') && p.type !== 'ReplacePrefixMatch') {
    fail(errors, path, 'object', "type must be 'ReplacePrefixMatch' when replacePrefixMatch is set");
  }
}

const CORS_STAR: [string, string][] = [
  ['allowOrigins', "AllowOrigins cannot contain '*' alongside other origins"],
  ['allowMethods', "AllowMethods cannot contain '*' alongside other methods"],
  // upstream's message really says "methods"
  ['allowHeaders', "AllowHeaders cannot contain '*' alongside other methods"],
];

function cors(c: Obj, path: string, errors: FieldError[]): void {
  for (const [key, message] of CORS_STAR) {
    const list = arr(c[key]);
    if (list.includes('*') && list.length > 1) fail(errors, child(path, key), 'array', message);
  }
}

function externalAuth(a: Obj, path: string, errors: FieldError[]): void {
  if (a.protocol === 'GRPC' && !has(a, 'grpc')) fail(errors, path, 'object', "grpc must be specified when protocol is set to 'GRPC'");
  if (has(a, 'grpc') && a.protocol !== 'GRPC') fail(errors, path, 'object', "protocol must be 'GRPC' when grpc is set");
  if (a.protocol === 'HTTP' && !has(a, 'http')) fail(errors, path, 'object', "http must be specified when protocol is set to 'HTTP'");
  if (has(a, 'http') && a.protocol !== 'HTTP') fail(errors, path, 'object', "protocol must be 'HTTP' when http is set");
  if (isObj(a.backendRef)) backendRefPort(a.backendRef, child(path, 'backendRef'), errors);
}

