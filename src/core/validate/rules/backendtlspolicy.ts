// CEL rules of BackendTLSPolicy (v1, v1alpha3): distinct targetRefs, exactly one source of CA
// certificates, and each subjectAltName carrying the one field its type names.
import type { FieldError } from '../types';
import { existsOne, fail, has, isObj, objs, size, type Obj } from '../cel';

const unsetSection = (p: Obj) => !has(p, 'sectionName') || p.sectionName === '';
const sameTarget = (p1: Obj, p2: Obj) => p1.group === p2.group && p1.kind === p2.kind && p1.name === p2.name;

function targetRefs(spec: Obj, errors: FieldError[]): void {
  if (!Array.isArray(spec.targetRefs)) return;
  const list = objs(spec.targetRefs);
  if (!list.every((p1) => list.every((p2) => (sameTarget(p1, p2) ? unsetSection(p1) === unsetSection(p2) : true)))) {
    fail(errors, 'spec.targetRefs', 'array', 'sectionName must be specified when targetRefs includes 2 or more references to the same target');
  }
  const unique = list.every((p1) => existsOne(list, (p2) => sameTarget(p1, p2)
    && ((unsetSection(p1) && unsetSection(p2)) || (has(p1, 'sectionName') && has(p2, 'sectionName') && p1.sectionName === p2.sectionName))));
  if (!unique) fail(errors, 'spec.targetRefs', 'array', 'sectionName must be unique when targetRefs includes 2 or more references to the same target');
}

function validation(v: Obj, errors: FieldError[]): void {
  const refs = Array.isArray(v.caCertificateRefs) && v.caCertificateRefs.length > 0;
  const wellKnown = typeof v.wellKnownCACertificates === 'string' && size(v.wellKnownCACertificates) > 0;
  if (refs && wellKnown) fail(errors, 'spec.validation', 'object', 'must not contain both CACertificateRefs and WellKnownCACertificates');
  if (!refs && !wellKnown) fail(errors, 'spec.validation', 'object', 'must specify either CACertificateRefs or WellKnownCACertificates');
  const sans = Array.isArray(v.subjectAltNames) ? v.subjectAltNames : [];
  sans.forEach((san: unknown, i: number) => {
    if (!isObj(san)) return;
    const path = `spec.validation.subjectAltNames[${i}]`;
    const set = (k: string) => has(san, k) && san[k] !== '';
    if (san.type === 'Hostname' && !set('hostname')) fail(errors, path, 'object', 'SubjectAltName element must contain Hostname, if Type is set to Hostname');
    if (san.type !== 'Hostname' && set('hostname')) fail(errors, path, 'object', 'SubjectAltName element must not contain Hostname, if Type is not set to Hostname');
    if (san.type === 'URI' && !set('uri')) fail(errors, path, 'object', 'SubjectAltName element must contain URI, if Type is set to URI');
    if (san.type !== 'URI' && set('uri')) fail(errors, path, 'object', 'SubjectAltName element must not contain URI, if Type is not set to URI');
  });
}

export function backendTLSPolicyRules(obj: Obj, errors: FieldError[]): void {
  if (!isObj(obj.spec)) return;
  targetRefs(obj.spec, errors);
  if (isObj(obj.spec.validation)) validation(obj.spec.validation, errors);
}
