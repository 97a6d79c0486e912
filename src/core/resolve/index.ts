export { decide, resolve } from './resolve';
export type { Decision, ResolveContext } from './resolve';
export { pickBackend } from './actions';
export { selectListener } from './listeners';
export * from './types';
