// The worker's rule and entry parts, their texts held in pieces (./table-parts holds the rest of
// the part model): a rule's backends and an entry's start are texts many parts have alike, held once.
import type { Part } from './table-parts';
import { flatText } from '../model/flat-text';

// Pieces of text that many parts hold the same: the backends of a rule (a Service's port and
// endpoints are written into every rule that sends to it, a few hundred bytes a rule in a table of
// thousands of routes onto a few dozen Services) and the start of an entry (its hostname). Bounded:
// when full it is emptied, which only keeps parts made later from sharing with those made before
// (their texts stay held by them).
const SHARED_TEXTS = new Map<string, string>();
const SHARED_TEXTS_LIMIT = 4096;

function sharedText(text: string): string {
  let t = SHARED_TEXTS.get(text);
  if (t === undefined) {
    if (SHARED_TEXTS.size >= SHARED_TEXTS_LIMIT) SHARED_TEXTS.clear();
    t = flatText(text);
    SHARED_TEXTS.set(t, t);
  }
  return t;
}

/**
 * A part's text held in three pieces and joined when read (a change reads the texts of the few
 * parts it compares or hashes), its item parsed again when read. The worker's rules and entries:
 * their pieces are texts other parts hold too (see rulePart, entryPart).
 */
class PiecedPart implements Part {
  cut: number | undefined = undefined;
  constructor(private readonly before: string, private readonly middle: string, private readonly after: string) {}

  get text(): string {
    return this.before + this.middle + this.after;
  }

  get item(): Record<string, unknown> {
    return JSON.parse(this.text) as Record<string, unknown>;
  }
}

/**
 * A rule's part as its text and the route it names (what the merge orders rules by): the worker's,
 * which keeps no compiled rule's objects once its text is made (translate/route-changes.ts reads a
 * rule's route with ruleRouteOf).
 */
class RuleTextPart extends PiecedPart {
  constructor(before: string, middle: string, after: string, readonly route: string) {
    super(before, middle, after);
  }
}

const BACKENDS_MEMBER = '"backends":';

/** A rule's part, the text of its backends shared with the rules that have the same. */
export function rulePart(item: Record<string, unknown>, route: string): Part {
  const text = JSON.stringify(item);
  const backends = Array.isArray(item.backends) ? JSON.stringify(item.backends) : undefined;
  const at = backends === undefined ? -1 : text.indexOf(BACKENDS_MEMBER + backends);
  if (at < 0) return new RuleTextPart(flatText(text), '', '', route);
  const from = at + BACKENDS_MEMBER.length;
  return new RuleTextPart(flatText(text.slice(0, from)), sharedText(backends!), flatText(text.slice(from + backends!.length)), route);
}

/**
 * An entry's part (the worker's): the text up to the rule it names is shared with the entries of
 * the same hostname, and the rule's id is the string the rule's key already is.
 */
export function entryPart(item: Record<string, unknown>): Part {
  const text = JSON.stringify(item);
  const rule = item.rule;
  // an id needs no escapes (see table-text): its JSON is itself in quotes
  const member = typeof rule === 'string' ? `"rule":${JSON.stringify(rule)}` : undefined;
  const at = member === undefined || member.length !== (rule as string).length + 9 ? -1 : text.indexOf(member);
  if (at < 0) return new PiecedPart(flatText(text), '', '');
  const from = at + 8;
  return new PiecedPart(sharedText(text.slice(0, from)), rule as string, flatText(text.slice(from + (rule as string).length)));
}

/** The route a rule's part names. */
export function ruleRouteOf(p: Part): string {
  return p instanceof RuleTextPart ? p.route : (p.item.route as string);
}
