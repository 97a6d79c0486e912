// CEL rules on references shared by the route kinds: backendRef ports and the parentRefs list.
import type { FieldError } from '../types';
import { existsOne, fail, has, isObj, size, type Obj } from '../cel';

/** `(size(self.group) == 0 && self.kind == 'Service') ? has(self.port) : true` */
export function backendRefPort(ref: Obj, path: string, errors: FieldError[]): void {
  if (typeof ref.group === 'string' && size(ref.group) === 0 && ref.kind === 'Service' && !has(ref, 'port')) {
    fail(errors, path, 'object', 'Must have port for Service reference');
  }
}

const unsetStr = (p: Obj, k: string) => !has(p, k) || p[k] === '';
const unsetPort = (p: Obj) => !has(p, 'port') || p.port === 0;

function sameParent(p1: Obj, p2: Obj): boolean {
  return (
    p1.group === p2.group &&
    p1.kind === p2.kind &&
    p1.name === p2.name &&
    ((unsetStr(p1, 'namespace') && unsetStr(p2, 'namespace')) ||
      (has(p1, 'namespace') && has(p2, 'namespace') && p1.namespace === p2.namespace))
  );
}

/** The experimental channel's parentRefs rules: sectionName and port together. */
export function parentRefs(spec: Obj, path: string, errors: FieldError[]): void {
  if (!Array.isArray(spec.parentRefs)) return;
  const list = (spec.parentRefs as unknown[]).filter(isObj) as Obj[];
  const lp = path ? `${path}.parentRefs` : 'parentRefs';
  const alike = list.every((p1) =>
    list.every((p2) =>
      sameParent(p1, p2)
        ? unsetStr(p1, 'sectionName') === unsetStr(p2, 'sectionName') && unsetPort(p1) === unsetPort(p2)
        : true,
    ),
  );
  if (!alike) {
    fail(errors, lp, 'array', 'sectionName or port must be specified when parentRefs includes 2 or more references to the same parent');
  }
  const unique = list.every((p1) =>
    existsOne(list, (p2) =>
      sameParent(p1, p2) &&
      ((unsetStr(p1, 'sectionName') && unsetStr(p2, 'sectionName')) ||
        (has(p1, 'sectionName') && has(p2, 'sectionName') && p1.sectionName === p2.sectionName)) &&
      ((unsetPort(p1) && unsetPort(p2)) || (has(p1, 'port') && has(p2, 'port') && p1.port === p2.port)),
    ),
  );
  if (!unique) {
    fail(errors, lp, 'array', 'sectionName or port must be unique when parentRefs includes 2 or more references to the same parent');
  }
}

/** `self.all(l1, !has(l1.name) || self.exists_one(l2, has(l2.name) && l1.name == l2.name))` */
export function uniqueRuleNames(rules: unknown, path: string, errors: FieldError[]): void {
  if (!Array.isArray(rules)) return;
  const list = rules.filter(isObj) as Obj[];
  const ok = list.every((l1) => !has(l1, 'name') || existsOne(list, (l2) => has(l2, 'name') && l1.name === l2.name));
  if (!ok) fail(errors, path, 'array', 'Rule name must be unique within the route');
}
