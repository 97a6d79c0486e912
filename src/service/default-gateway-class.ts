// On first start the server creates a GatewayClass for its own controller, so that an upstream
// example (which names a class) attaches without a setup step. Only on the first start: a class
// of that name that exists, or that an operator deleted, is left alone.
import type { ResourceService } from './resources';
import { ServiceError } from './errors';
import { kindInfo } from '../core/model/kinds';

const SYSTEM = { name: 'system:bootstrap', secretReader: false };

/** Answers whether it created the class. */
export async function ensureDefaultGatewayClass(resources: ResourceService, controllerName: string, name: string): Promise<boolean> {
  const info = kindInfo('GatewayClass')!;
  try {
    await resources.history(info, '', name);
    return false; // it exists, or existed once
  } catch (e) {
    if (!(e instanceof ServiceError) || e.kind !== 'not-found') throw e;
  }
  try {
    await resources.write(info, '', name, {
      apiVersion: 'gateway.networking.k8s.io/v1', kind: 'GatewayClass', metadata: { name },
      spec: { controllerName, description: 'Created by Switchyard on first start for its own controller.' },
    }, 'create', SYSTEM);
    return true;
  } catch (e) {
    // another process starting at the same time created it first
    if (e instanceof ServiceError && e.kind === 'conflict') return false;
    throw e;
  }
}
