export { compileGateway, compileTable, compileUnattached, tableJson } from './compile-gateway';
export * from './types';
