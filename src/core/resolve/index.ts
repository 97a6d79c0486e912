export { resolve } from './resolve';
export type { ResolveContext } from './resolve';
export { pickBackend } from './actions';
export * from './types';
