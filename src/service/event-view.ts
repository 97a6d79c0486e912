// What a caller may see of an event. Secret events already carry only a digest in the log.
import type { StoredEvent } from '../adapters/store/eventlog';
import type { Principal } from './principal';
import { presentSecret } from './secrets';
import { canRead } from './access';

export function canReadEvent(p: Principal, ev: StoredEvent): boolean {
  return canRead(p, ev.kind, ev.namespace, ev.name);
}

export function presentEvent(_p: Principal, ev: StoredEvent) {
  const object = ev.kind === 'Secret' ? { ...presentSecret(ev.object, undefined), dataDigest: ev.object.dataDigest } : ev.object;
  return { position: ev.position, type: ev.type, kind: ev.kind, namespace: ev.namespace, name: ev.name, version: ev.version, actor: ev.actor, time: ev.time, object };
}
