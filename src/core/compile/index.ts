export { compileGateway, compileTable, compileUnattached, tableJson } from './compile-gateway';
export type { CompileOptions } from './compile-gateway';
export type { BackendResolver } from './backends';
export * from './types';
