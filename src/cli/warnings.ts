// Kubernetes-style Warning headers (`299 - "text"`) of an answer, printed as kubectl prints them.
import type { Io } from './command';

/** The texts of the Warning headers; fetch joins repeated headers with ", ", so each is found by its quotes. */
export function warningsOf(headers: Headers): string[] {
  const raw = headers.get('warning');
  if (!raw) return [];
  const out: string[] = [];
  for (const m of raw.matchAll(/\d{3} \S+ "((?:[^"\\]|\\.)*)"/g)) out.push(m[1].replace(/\\(.)/g, '$1'));
  return out;
}

export function printWarnings(headers: Headers, io: Io): void {
  for (const w of warningsOf(headers)) io.err(`Warning: ${w}\n`);
}
