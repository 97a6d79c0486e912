export { resolve } from './resolve';
export type { ResolveContext } from './resolve';
export { pickBackend, locationOf } from './actions';
export * from './types';
