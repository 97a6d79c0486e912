export { compileGateway, compileTable, compileUnattached, tableJson, ruleBodyOf, partIdsOf } from './compile-gateway';
export * from './types';
