export * from './ladder';
export * from './ranks';
