// What every process of the service exposes once: Node's own metrics and switchyard_build_info.
// In `npm start` the worker's registry is merged into the API's, so these live in one registry only.
import { Gauge, collectDefaultMetrics, type Registry } from 'prom-client';
import { GATEWAY_API_VERSION, VERSION } from '../../runtime/version';

export function registerProcessMetrics(registry: Registry): void {
  collectDefaultMetrics({ register: registry });
  const info = new Gauge({
    name: 'switchyard_build_info', help: 'Always 1; the labels say which build runs, for which Gateway API release, on which Node',
    labelNames: ['version', 'gatewayAPIVersion', 'node'], registers: [registry],
  });
  info.set({ version: VERSION, gatewayAPIVersion: GATEWAY_API_VERSION, node: process.version }, 1);
}
