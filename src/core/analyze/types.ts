// Named aliases of the analysis and explanation shapes generated from openapi/schemas/analysis.yaml.
import type { components } from '../../generated/api';

type S = components['schemas'];
export type AnalysisWarning = S['AnalysisWarning'];
export type AnalysisWarningCode = S['AnalysisWarningCode'];
export type StatusExplanation = S['StatusExplanation'];
export type StatusExplanationEntry = S['StatusExplanationEntry'];
export type StatusExplanationReason = S['StatusExplanationReason'];
