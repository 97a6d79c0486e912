// Round-robin over the ready endpoints of each backend, a cursor per backend (Service and port).
// A connection or session takes one endpoint when it opens and keeps it.
import type { CompiledBackend, CompiledEndpoint } from '../core/compile/types';

export class EndpointPicker {
  private readonly cursors = new Map<string, number>();

  next(b: CompiledBackend): CompiledEndpoint | undefined {
    // one endpoint (or none): no cursor to keep
    if (b.endpoints.length <= 1) return b.endpoints[0];
    const key = `${b.namespace}/${b.name}:${b.port ?? ''}`;
    const i = this.cursors.get(key) ?? 0;
    this.cursors.set(key, (i + 1) % b.endpoints.length);
    return b.endpoints[i % b.endpoints.length];
  }
}
