// Turns an apply body into entries, one per object, each with its document index.
//
// YAML is parsed safely: the core schema only (no custom or language tags: any tag outside the
// core set is refused, not silently read as a string), no merge keys, unique keys, and alias
// expansion bounded by maxAliasCount so that a "billion laughs" document fails in milliseconds.
// Documents are composed and converted one at a time, so memory holds one document's syntax tree,
// not the whole body's. Keys such as __proto__ become plain own properties (never prototypes).
import { Composer, LineCounter, Parser, isAlias, visit, type Document } from 'yaml';
import { ApplyRejection, type ApplyIssue, type ManifestEntry } from './types';
import { MAX_BODY_DEPTH, nestedDeeperThan } from '../validate/storable';
import { duplicateKeys } from '../validate/duplicate-keys';

export const MAX_ALIAS_COUNT = 100;

const CORE_TAGS = new Set(
  ['str', 'int', 'float', 'bool', 'null', 'map', 'seq'].map((t) => `tag:yaml.org,2002:${t}`),
);

export type ManifestFormat = 'yaml' | 'json';

/** The media types apply takes, or null. */
export function manifestFormat(contentType: string | undefined): ManifestFormat | null {
  const t = (contentType ?? '').split(';')[0].trim().toLowerCase();
  if (t === '' || t === 'application/yaml' || t === 'application/x-yaml' || t === 'text/yaml' || t === 'text/x-yaml' || t.endsWith('+yaml')) return 'yaml';
  if (t === 'application/json' || t.endsWith('+json')) return 'json';
  return null;
}

export function parseManifest(text: string, format: ManifestFormat): ManifestEntry[] {
  return format === 'json' ? parseJsonManifest(text) : parseYamlManifest(text);
}

const isMap = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A List (kind: List, or any *List with items) stands for its items. */
function isList(v: unknown): v is { kind: string; items: unknown[] } {
  return isMap(v) && typeof v.kind === 'string' && v.kind.endsWith('List') && 'items' in v;
}

function expand(document: number, value: unknown, out: ManifestEntry[]): void {
  if (isList(value)) {
    if (!Array.isArray(value.items))
      throw new ApplyRejection(422, `document ${document}: items of a ${value.kind} must be an array`, [{ document, path: 'items', message: 'must be an array' }]);
    value.items.forEach((object, item) => out.push({ document, item, object }));
    return;
  }
  out.push({ document, object: value });
}

export function parseJsonManifest(text: string): ManifestEntry[] {
  if (text.trim() === '') throw new ApplyRejection(400, 'the request body is empty; send {"items": [...]} or a List');
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (e) {
    throw new ApplyRejection(400, `the request body is not valid JSON: ${(e as Error).message}`);
  }
  if (nestedDeeperThan(body, MAX_BODY_DEPTH)) throw new ApplyRejection(400, `the request body is nested more than ${MAX_BODY_DEPTH} levels deep`);
  // as the YAML reader refuses a key given twice, so does the JSON one (JSON.parse would keep the last)
  const duplicates = duplicateKeys(text, body);
  if (duplicates.length)
    throw new ApplyRejection(400, `the request body holds keys twice: ${duplicates.map((d) => `duplicate field "${d}"`).join(', ')}`, duplicates.map((path) => ({ document: 0, path, message: 'duplicate field' })));
  if (!isMap(body)) throw new ApplyRejection(400, 'a JSON apply body must be an object: {"items": [...]} or a List');
  if ('items' in body) {
    if (!Array.isArray(body.items)) throw new ApplyRejection(400, 'items must be an array of objects');
    return body.items.map((object, document) => ({ document, object }));
  }
  if (typeof body.kind === 'string') return [{ document: 0, object: body }];
  throw new ApplyRejection(400, 'a JSON apply body must be {"items": [...]}, a List, or one object with a kind');
}

/** A problem of one document, numbered within the text that was parsed. */
export interface DocumentProblem {
  status: 400 | 422;
  document: number;
  reason: string;
  issues: ApplyIssue[];
  /** where in the text (1-based, lineOffset added), when the problem has a place */
  line?: number;
  column?: number;
}

export interface YamlChunk {
  entries: ManifestEntry[];
  /** documents in the text, empty ones included */
  documents: number;
  problem?: DocumentProblem;
}

class Stop extends Error {
  constructor(readonly problem: DocumentProblem) {
    super(problem.reason);
  }
}

/** The rejection of a problem, its documents renumbered by `offset`. */
export function rejectionOf(p: DocumentProblem, offset = 0): ApplyRejection {
  return new ApplyRejection(p.status, `document ${p.document + offset}: ${p.reason}`, p.issues.map((i) => ({ ...i, document: (i.document ?? p.document) + offset })));
}

/**
 * Parses YAML documents; never throws. `lineOffset` is added to the line numbers in messages (for a
 * chunk of a larger body, see splitYamlDocuments).
 */
export function parseYamlChunk(text: string, lineOffset = 0): YamlChunk {
  const lines = new LineCounter();
  const parser = new Parser(lines.addNewLine);
  const composer = new Composer({ version: '1.2', schema: 'core', merge: false, uniqueKeys: true, strict: true });
  const entries: ManifestEntry[] = [];
  let document = 0;
  const locate = (offset: number | undefined): Place | undefined => {
    if (offset === undefined) return undefined;
    const { line, col } = lines.linePos(offset);
    return { line: line + lineOffset, column: col };
  };
  try {
    for (const doc of composer.compose(parser.parse(text), true, text.length)) {
      checkDocument(doc, document, locate);
      const value = doc.contents === null ? null : toJs(doc, document);
      // a parse worker's answer this deep cannot even be copied back to the main thread
      if (nestedDeeperThan(value, MAX_BODY_DEPTH)) throw new Stop(tooDeep(document));
      if (value !== null && value !== undefined) expand(document, value, entries);
      document++;
    }
  } catch (e) {
    const problem: DocumentProblem = e instanceof Stop ? e.problem
      : e instanceof ApplyRejection ? { status: e.status as 400 | 422, document, reason: e.message.replace(/^document \d+: /, ''), issues: e.issues }
      : e instanceof RangeError ? tooDeep(document)
      : { status: 400, document, reason: `the YAML could not be read: ${(e as Error).message}`, issues: [{ document, path: '', message: (e as Error).message }] };
    return { entries, documents: document, problem };
  }
  return { entries, documents: document };
}

export function parseYamlManifest(text: string): ManifestEntry[] {
  const r = parseYamlChunk(text);
  if (r.problem) throw rejectionOf(r.problem);
  if (r.entries.length === 0 && text.trim() === '') throw new ApplyRejection(400, 'the request body is empty; send one or more YAML documents');
  return r.entries;
}

/**
 * Cuts a YAML stream into about `parts` pieces at document start markers (a line beginning with
 * "---"), so that they can be parsed in parallel. A marker at a line start always begins a new
 * document (the YAML spec forbids such lines inside scalars), so the pieces parse to the same
 * documents as the whole. A stream with directives (lines beginning with "%") is not cut.
 */
export function splitYamlDocuments(text: string, parts: number): { text: string; lineOffset: number }[] {
  if (parts < 2 || /^%/m.test(text)) return [{ text, lineOffset: 0 }];
  const marker = /^---(?=[ \t\r\n]|$)/gm;
  const cuts: number[] = [];
  for (let k = 1; k < parts; k++) {
    marker.lastIndex = Math.max(Math.floor((k * text.length) / parts), (cuts[cuts.length - 1] ?? 0) + 1);
    const m = marker.exec(text);
    if (!m) break;
    if (m.index > 0) cuts.push(m.index);
  }
  const out: { text: string; lineOffset: number }[] = [];
  let from = 0;
  let line = 0;
  for (const cut of [...cuts, text.length]) {
    const piece = text.slice(from, cut);
    out.push({ text: piece, lineOffset: line });
    for (let i = 0; i < piece.length; i++) if (piece.charCodeAt(i) === 10) line++;
    from = cut;
  }
  return out;
}

/** Joins parsed pieces in order, renumbering documents; the first problem is the answer. */
export function joinYamlChunks(chunks: YamlChunk[]): ManifestEntry[] {
  const out: ManifestEntry[] = [];
  let offset = 0;
  for (const c of chunks) {
    if (c.problem) throw rejectionOf(c.problem, offset);
    for (const e of c.entries) out.push(e.item === undefined ? { document: e.document + offset, object: e.object } : { document: e.document + offset, item: e.item, object: e.object });
    offset += c.documents;
  }
  return out;
}

function tooDeep(document: number): DocumentProblem {
  return { status: 400, document, reason: `the YAML is nested more than ${MAX_BODY_DEPTH} levels deep`, issues: [{ document, path: '', message: `nested more than ${MAX_BODY_DEPTH} levels deep` }] };
}

interface Place { line: number; column: number }

function checkDocument(doc: Document.Parsed, document: number, locate: (offset: number | undefined) => Place | undefined): void {
  const at = (p: Place | undefined) => (p ? ` at line ${p.line}, column ${p.column}` : '');
  const first = doc.errors[0];
  // the parser reports running out of stack as a syntax error
  if (first && /call stack/i.test(first.message)) throw new Stop(tooDeep(document));
  if (first) {
    const place = locate(first.pos?.[0]);
    const message = `${first.message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '')}${at(place)}`;
    throw new Stop({ status: 400, document, reason: `the YAML is not well-formed: ${message}`, issues: [{ document, path: '', message, ...place }], ...place });
  }
  const issues: ApplyIssue[] = [];
  let place: Place | undefined;
  for (const w of doc.warnings) {
    if (w.code === 'TAG_RESOLVE_FAILED' || /tag/i.test(w.message)) {
      const p = locate(w.pos?.[0]);
      place ??= p;
      issues.push({ document, path: '', message: `${w.message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '')}${at(p)}: custom tags are not allowed`, ...p });
    }
  }
  visit(doc, {
    Node(_key, node) {
      if (isAlias(node)) return;
      if (node.tag && !CORE_TAGS.has(node.tag)) {
        const p = locate(node.range?.[0]);
        place ??= p;
        issues.push({ document, path: '', message: `the tag ${node.tag}${at(p)} is not allowed: only plain YAML (strings, numbers, booleans, null, maps, sequences) is accepted`, ...p });
        return visit.BREAK;
      }
    },
  });
  if (issues.length) throw new Stop({ status: 400, document, reason: issues[0].message, issues, ...place });
}

function toJs(doc: Document.Parsed, document: number): unknown {
  try {
    return doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
  } catch (e) {
    const msg = (e as Error).message;
    if (/alias/i.test(msg))
      throw new Stop({ status: 400, document, reason: `YAML aliases expand beyond the allowed limit (${MAX_ALIAS_COUNT}); the document looks like an alias bomb`, issues: [{ document, path: '', message: msg }] });
    throw e;
  }
}
