export { compileGateway, compileTable, compileUnattached, tableJson, ruleBodyOf } from './compile-gateway';
export * from './types';
