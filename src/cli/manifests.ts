// Reading manifests from files, directories and standard input, for apply and analyze. YAML is read
// by the server's own parser (core/apply/manifest.ts: core schema, unique keys, no custom tags,
// bounded aliases), so a file the command accepts is one the server accepts. A file that cannot be
// read as YAML or JSON, or holds nothing, is an error of its content (exit 1), not of usage.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join } from 'node:path';
import { UsageError } from './args';
import { parseYamlChunk } from '../core/apply/manifest';

export interface Origin {
  file: string;
  document: number;
  item?: number;
}

export interface Source {
  file: string;
  text: string;
}

/** The content of a manifest file is wrong: exit 1, with the place and the offending line. */
export class ManifestError extends Error {}

const MANIFEST_EXT = new Set(['.yaml', '.yml', '.json']);

function filesOf(path: string, recursive: boolean): string[] {
  const st = statSync(path);
  if (!st.isDirectory()) return [path];
  const out: string[] = [];
  for (const name of readdirSync(path).sort()) {
    const full = join(path, name);
    const s = statSync(full);
    if (s.isDirectory()) {
      if (recursive) out.push(...filesOf(full, true));
    } else if (MANIFEST_EXT.has(extname(name).toLowerCase())) out.push(full);
  }
  return out;
}

/** The files of each path (a file, a directory of .yaml/.yml/.json files, or - for stdin). */
export async function readSources(paths: string[], recursive: boolean, stdin: () => Promise<string>): Promise<Source[]> {
  const sources: Source[] = [];
  for (const p of paths) {
    if (p === '-') {
      sources.push({ file: '<stdin>', text: await stdin() });
      continue;
    }
    let files: string[];
    try {
      files = filesOf(p, recursive);
    } catch (e) {
      throw new UsageError(`cannot read ${p}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file or directory' : (e as Error).message}`);
    }
    if (files.length === 0) throw new UsageError(`${p} holds no .yaml, .yml or .json files${recursive ? '' : ' (add -R to read its subdirectories)'}`);
    for (const f of files) sources.push({ file: f, text: readFileSync(f, 'utf8') });
  }
  return sources;
}

/** "file:3:7: what\n    3 | the line\n      |       ^" */
function placed(file: string, text: string, line: number, column: number, what: string): string {
  const lines = text.split(/\r?\n/);
  const shown = lines[line - 1];
  const gutter = String(line);
  const body = shown === undefined || (shown.trim() === '' && line >= lines.length)
    ? `    (at the end of the file)`
    : `    ${gutter} | ${shown}\n    ${' '.repeat(gutter.length)} | ${' '.repeat(Math.max(0, column - 1))}^`;
  return `${file}:${line}:${column}: ${what}\n${body}`;
}

function jsonPlace(text: string, message: string): { line: number; column: number } | undefined {
  const lc = message.match(/line (\d+) column (\d+)/);
  if (lc) return { line: Number(lc[1]), column: Number(lc[2]) };
  const pos = message.match(/position (\d+)/);
  if (!pos) return undefined;
  const before = text.slice(0, Number(pos[1]));
  const nl = before.lastIndexOf('\n');
  return { line: before.split('\n').length, column: before.length - nl };
}

/** Reads manifests into one item list, remembering where each item came from. */
export function readManifests(sources: Source[]): { items: unknown[]; origins: Origin[] } {
  const items: unknown[] = [];
  const origins: Origin[] = [];
  for (const { file, text } of sources) {
    const before = items.length;
    const what = file === '<stdin>' ? 'standard input' : 'the file';
    if (text.trim() === '') throw new ManifestError(`${file}: ${what} is empty; a manifest holds one or more YAML documents (or a JSON object)`);
    if (extname(file).toLowerCase() === '.json') {
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch (e) {
        const message = (e as Error).message;
        const at = jsonPlace(text, message);
        throw new ManifestError(at ? placed(file, text, at.line, at.column, `not valid JSON: ${message}`) : `${file}: not valid JSON: ${message}`);
      }
      const v = value as { kind?: unknown; items?: unknown };
      const list = v && typeof v === 'object' && !Array.isArray(v) && Array.isArray(v.items) && (v.kind === undefined || (typeof v.kind === 'string' && v.kind.endsWith('List')));
      if (list) (v.items as unknown[]).forEach((item, i) => { items.push(item); origins.push({ file, document: 0, item: i }); });
      else if (value !== null) { items.push(value); origins.push({ file, document: 0 }); }
    } else {
      const chunk = parseYamlChunk(text);
      if (chunk.problem) {
        const p = chunk.problem;
        const what = p.reason.replace(/ at line \d+, column \d+/, '');
        throw new ManifestError(p.line !== undefined ? placed(file, text, p.line, p.column ?? 1, what) : `${file} (document ${p.document}): ${what}`);
      }
      for (const e of chunk.entries) {
        items.push(e.object);
        origins.push({ file, document: e.document, ...(e.item !== undefined ? { item: e.item } : {}) });
      }
    }
    if (items.length === before) throw new ManifestError(`${file}: ${what} holds no objects (only comments or empty documents)`);
  }
  return { items, origins };
}

export function where(o: Origin | undefined): string {
  if (!o) return '';
  return `${o.file} (document ${o.document}${o.item !== undefined ? `, item ${o.item}` : ''})`;
}
