export { analyzeManifests, type AnalyzeInput } from './analyze';
export { explainNeeds, explainStatus, listenerSetGateway, type ExplainInput } from './explain';
export { grpcMatchCovers, matchCovers } from './shadowing';
export type * from './types';
export { analysisScope, type AnalysisScope } from './scope';
export { analyzeEntries, type EntriesAnalysis, type Finding } from './entries';
