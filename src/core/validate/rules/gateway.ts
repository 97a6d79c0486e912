// CEL rules of Gateway (v1, v1beta1) and ListenerSet (v1), experimental channel.
import { child } from '../messages';
import type { FieldError } from '../types';
import { eachItem, evalError, existsOne, fail, has, isObj, objs, size, type Obj } from '../cel';
import { safeRegex } from '../regex';

const HOSTNAME = safeRegex('^(\\*\\.)?[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$');
const HOSTNAME_PATTERN = '^(\\*\\.)?[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$';
const META_KEY = safeRegex(
  '^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?([A-Za-z0-9][-A-Za-z0-9_.]{0,61})?[A-Za-z0-9]$',
);

export function gatewayRules(obj: Obj, errors: FieldError[]): void {
  const spec = obj.spec;
  if (isObj(spec)) {
    if (Array.isArray(spec.listeners)) listeners(objs(spec.listeners), 'spec.listeners', errors);
    eachItem(spec, 'listeners', 'spec', (l, lp) => {
      if (isObj(l.tls)) listenerTLS(l.tls, child(lp, 'tls'), errors);
    });
    if (Array.isArray(spec.addresses)) {
      addressUniqueness(objs(spec.addresses), 'spec.addresses', errors);
      eachItem(spec, 'addresses', 'spec', (a, ap) => {
        if (a.type === 'Hostname' && has(a, 'value') && !HOSTNAME.test(String(a.value))) {
          fail(errors, ap, 'object', `Hostname value must be empty or contain only valid characters (matching ${HOSTNAME_PATTERN})`);
        }
      });
    }
    const infra = spec.infrastructure;
    if (isObj(infra)) {
      if (isObj(infra.labels)) metaKeys(infra.labels, 'spec.infrastructure.labels', 'Label', 'label', errors);
      if (isObj(infra.annotations)) metaKeys(infra.annotations, 'spec.infrastructure.annotations', 'Annotation', 'annotation', errors);
    }
    const perPort = spec.tls?.frontend?.perPort;
    if (Array.isArray(perPort)) {
      const list = objs(perPort);
      if (!list.every((t1) => existsOne(list, (t2) => t1.port === t2.port))) {
        fail(errors, 'spec.tls.frontend.perPort', 'array', 'Port for TLS configuration must be unique within the Gateway');
      }
    }
  }
  const status = obj.status;
  if (isObj(status)) {
    eachItem(status, 'addresses', 'status', (a, ap) => {
      if (a.type === 'Hostname' && !HOSTNAME.test(String(a.value ?? ''))) {
        fail(errors, ap, 'object', `Hostname value must only contain valid characters (matching ${HOSTNAME_PATTERN})`);
      }
    });
  }
}

/** ListenerSet v1: its listeners carry the Gateway listeners' rules, messages and all (the CRD copies them). */
export function listenerSetRules(obj: Obj, errors: FieldError[]): void {
  const spec = obj.spec;
  if (!isObj(spec)) return;
  if (Array.isArray(spec.listeners)) listeners(objs(spec.listeners), 'spec.listeners', errors);
  eachItem(spec, 'listeners', 'spec', (l, lp) => {
    if (isObj(l.tls)) listenerTLS(l.tls, child(lp, 'tls'), errors);
  });
}

function sameHost(a: Obj, b: Obj): boolean {
  return has(a, 'hostname') && has(b, 'hostname') ? a.hostname === b.hostname : !has(a, 'hostname') && !has(b, 'hostname');
}

function listeners(list: Obj[], path: string, errors: FieldError[]): void {
  if (!list.every((l) => (['HTTP', 'TCP', 'UDP'].includes(l.protocol) ? !has(l, 'tls') : true))) {
    fail(errors, path, 'array', "tls must not be specified for protocols ['HTTP', 'TCP', 'UDP']");
  }
  if (!list.every((l) => (l.protocol === 'HTTPS' && has(l, 'tls') ? l.tls.mode === '' || l.tls.mode === 'Terminate' : true))) {
    fail(errors, path, 'array', 'tls mode must be Terminate for protocol HTTPS');
  }
  if (!list.every((l) => (l.protocol === 'TLS' ? has(l, 'tls') && has(l.tls, 'mode') && l.tls.mode !== '' : true))) {
    fail(errors, path, 'array', 'tls mode must be set for protocol TLS');
  }
  if (!list.every((l) => (['TCP', 'UDP'].includes(l.protocol) ? !has(l, 'hostname') || l.hostname === '' : true))) {
    fail(errors, path, 'array', "hostname must not be specified for protocols ['TCP', 'UDP']");
  }
  if (!list.every((l1) => existsOne(list, (l2) => l1.name === l2.name))) {
    fail(errors, path, 'array', 'Listener name must be unique within the Gateway');
  }
  if (!list.every((l1) => existsOne(list, (l2) => l1.port === l2.port && l1.protocol === l2.protocol && sameHost(l1, l2)))) {
    fail(errors, path, 'array', 'Combination of port, protocol and hostname must be unique for each listener');
  }
}

/** CEL size() of a list or map field, or the evaluation error of reading an absent one. */
function sizeOf(o: Obj, k: string): number | string {
  if (!has(o, k)) return `no such key: ${k}`;
  return Array.isArray(o[k]) ? o[k].length : Object.keys(o[k]).length;
}

/** `self.mode == 'Terminate' ? size(self.certificateRefs) > 0 || size(self.options) > 0 : true`, read without has() */
function listenerTLS(tls: Obj, path: string, errors: FieldError[]): void {
  const message = 'certificateRefs or options must be specified when mode is Terminate';
  if (tls.mode !== 'Terminate') return;
  const left = sizeOf(tls, 'certificateRefs');
  if (typeof left === 'number' && left > 0) return;
  const right = sizeOf(tls, 'options');
  if (typeof right === 'number' && right > 0) return;
  // CEL's `||`: an error on either side wins over false, the left one first
  if (typeof left === 'string') return evalError(errors, path, 'object', left, message);
  if (typeof right === 'string') return evalError(errors, path, 'object', right, message);
  fail(errors, path, 'object', message);
}

function addressUniqueness(list: Obj[], path: string, errors: FieldError[]): void {
  for (const [type, message] of [
    ['IPAddress', 'IPAddress values must be unique'],
    ['Hostname', 'Hostname values must be unique'],
  ]) {
    const ok = list.every((a1) =>
      a1.type === type && has(a1, 'value')
        ? existsOne(list, (a2) => a2.type === a1.type && has(a2, 'value') && a2.value === a1.value)
        : true,
    );
    if (!ok) fail(errors, path, 'array', message);
  }
}

function metaKeys(map: Obj, path: string, Kind: string, kind: string, errors: FieldError[]): void {
  const keys = Object.keys(map);
  if (!keys.every((k) => META_KEY.test(k))) {
    fail(errors, path, 'object',
      `${Kind} keys must be in the form of an optional DNS subdomain prefix followed by a required name segment of up to 63 characters.`);
  }
  if (!keys.every((k) => size(k.split('/')[0]) < 253)) {
    fail(errors, path, 'object', `If specified, the ${kind} key's prefix must be a DNS subdomain not longer than 253 characters in total.`);
  }
}

