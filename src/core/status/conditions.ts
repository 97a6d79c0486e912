// Building conditions and merging them into the previous status. The rules are the Kubernetes ones
// (meta.SetStatusCondition) plus Gateway API's notes for implementors:
// - lastTransitionTime moves only when the status flips (True/False/Unknown), otherwise it is kept;
// - observedGeneration is always the generation of the object the condition describes;
// - conditions of types this controller does not own are kept, untouched and in place.
import type { Condition } from '../model/objects';

export type Status = 'True' | 'False' | 'Unknown';

/** A condition as computed, before it is given its times and generation. */
export interface ConditionDraft {
  type: string;
  status: Status;
  reason: string;
  message: string;
}

export function draft(type: string, status: boolean | Status, reason: string, message: string): ConditionDraft {
  return { type, status: typeof status === 'boolean' ? (status ? 'True' : 'False') : status, reason, message };
}

export interface MergeContext {
  generation?: number;
  now: string;
  /** condition types this controller is responsible for on this status */
  owned: readonly string[];
}

/**
 * The conditions to write: our drafts in their order, each keeping its previous lastTransitionTime
 * when its status did not flip; foreign conditions from `previous` kept as they were (in front, in
 * their order); owned types we no longer compute are dropped.
 */
export function mergeConditions(
  drafts: readonly ConditionDraft[],
  previous: readonly Condition[] | undefined,
  ctx: MergeContext,
): Condition[] {
  const prevByType = new Map<string, Condition>();
  for (const c of previous ?? []) if (c && typeof c.type === 'string') prevByType.set(c.type, c);
  const computedTypes = new Set(drafts.map((d) => d.type));
  const foreign = (previous ?? []).filter(
    (c) => c && !ctx.owned.includes(c.type) && !computedTypes.has(c.type),
  );
  const ours = drafts.map((d) => {
    const prev = prevByType.get(d.type);
    const lastTransitionTime = prev && prev.status === d.status && prev.lastTransitionTime ? prev.lastTransitionTime : ctx.now;
    const c: Condition = { type: d.type, status: d.status, reason: d.reason, message: d.message, lastTransitionTime };
    if (ctx.generation !== undefined) c.observedGeneration = ctx.generation;
    return orderKeys(c);
  });
  return foreign.length ? [...foreign, ...ours] : ours;
}

// A stable key order keeps golden files and content hashes independent of construction order.
function orderKeys(c: Condition): Condition {
  const out: Condition = {
    type: c.type, status: c.status, reason: c.reason, message: c.message,
    lastTransitionTime: c.lastTransitionTime,
  };
  if (c.observedGeneration !== undefined) out.observedGeneration = c.observedGeneration;
  return out;
}
