// labelSelector and fieldSelector of a list or watch, parsed once; a malformed one is a 400.
import type { Request } from 'express';
import { HttpError } from '../problem';
import { parseFieldSelector, FieldSelectorError, type FieldRequirement } from '../../../core/kube/field-selector';
import { parseLabelSelector, SelectorError, type Requirement } from '../../../core/objects/label-selector';

export interface ListSelectors {
  labels: Requirement[];
  fields: FieldRequirement[];
}

export function selectorsOf(req: Request): ListSelectors {
  const q = req.query;
  try {
    return {
      labels: typeof q.labelSelector === 'string' && q.labelSelector ? parseLabelSelector(q.labelSelector) : [],
      fields: typeof q.fieldSelector === 'string' && q.fieldSelector ? parseFieldSelector(q.fieldSelector) : [],
    };
  } catch (e) {
    if (e instanceof SelectorError) throw new HttpError(400, `unable to parse requirement: labelSelector: ${e.message}`);
    if (e instanceof FieldSelectorError) throw new HttpError(400, `fieldSelector: ${e.message}`);
    throw e;
  }
}
