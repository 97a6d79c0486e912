export { compileGateway, compileParts, compileTable, compileUnattached } from './compile-gateway';
export * from './types';
