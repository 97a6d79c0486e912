// Duplicate keys in a JSON text. JSON.parse keeps the last of them without a word, where
// kube-apiserver's field validation reports each one (Strict refuses, Warn warns). Every write body
// passes here, so the common case is a cheap count: the members the text holds (the colons outside
// strings) against the keys the parsed value kept. Only when they differ is the text read again,
// slowly, for the paths of the duplicates.

/** The paths of the keys `text` holds more than once in one object ("metadata.labels.app", "spec.rules[0].matches"), in order, at most 100. `parsed` is JSON.parse(text). */
export function duplicateKeys(text: string, parsed: unknown): string[] {
  if (typeof parsed !== 'object' || parsed === null) return [];
  const keys = keysIn(parsed);
  if (membersIn(text, keys) === keys) return [];
  const found: string[] = [];
  new Scanner(text, found).value('');
  return found;
}

/**
 * Colons outside strings: in valid JSON, one per object member. Found with indexOf, which skips
 * whitespace and long strings at native speed; most bodies have no colon in a string, and for them
 * the first count (every colon) is the answer.
 */
function membersIn(text: string, keys: number): number {
  let all = 0;
  for (let c = text.indexOf(':'); c !== -1; c = text.indexOf(':', c + 1)) all++;
  if (all === keys) return all;
  let n = 0;
  let i = 0;
  let colon = text.indexOf(':');
  for (;;) {
    const q = text.indexOf('"', i);
    const end = q === -1 ? text.length : q;
    for (; colon !== -1 && colon < end; colon = text.indexOf(':', colon + 1)) n++;
    if (q === -1) return n;
    // the closing quote: one not escaped, that is after an even run of backslashes
    let e = q;
    for (;;) {
      e = text.indexOf('"', e + 1);
      let b = e - 1;
      while (text.charCodeAt(b) === 92) b--;
      if (((e - 1 - b) & 1) === 0) break;
    }
    i = e + 1;
    if (colon !== -1 && colon < i) colon = text.indexOf(':', i);
  }
}

function keysIn(v: object): number {
  let n = 0;
  const stack: unknown[] = [v];
  while (stack.length) {
    const x = stack.pop();
    if (typeof x !== 'object' || x === null) continue;
    if (Array.isArray(x)) {
      for (let i = 0; i < x.length; i++) if (typeof x[i] === 'object' && x[i] !== null) stack.push(x[i]);
    } else {
      for (const k in x) {
        if (!Object.hasOwn(x, k)) continue;
        n++;
        const c = (x as Record<string, unknown>)[k];
        if (typeof c === 'object' && c !== null) stack.push(c);
      }
    }
  }
  return n;
}

/** As many as kube-apiserver reports: a body of ten thousand repeated keys gets a bounded answer. */
const MAX_REPORTED = 100;

/** A reader of text already known to be valid JSON: it need not check what it skips. */
class Scanner {
  private i = 0;
  constructor(private readonly text: string, private readonly found: string[]) {}

  private space(): void {
    const t = this.text;
    while (this.i < t.length) {
      const c = t.charCodeAt(this.i);
      if (c !== 32 && c !== 9 && c !== 10 && c !== 13) return;
      this.i++;
    }
  }

  /** Past a string; its value only when asked for (keys), as unescaping costs. */
  private string(read: true): string;
  private string(read: false): void;
  private string(read: boolean): string | void {
    const t = this.text;
    const start = this.i;
    for (this.i++; this.i < t.length; this.i++) {
      const c = t.charCodeAt(this.i);
      if (c === 92) this.i++;
      else if (c === 34) break;
    }
    this.i++;
    if (read) return JSON.parse(t.slice(start, this.i)) as string;
  }

  value(path: string): void {
    this.space();
    const c = this.text.charCodeAt(this.i);
    if (c === 123) return this.object(path);
    if (c === 91) return this.array(path);
    if (c === 34) return this.string(false);
    // a number, true, false or null: up to the next delimiter
    while (this.i < this.text.length && !',]} \t\n\r'.includes(this.text[this.i])) this.i++;
  }

  private object(path: string): void {
    this.i++;
    const seen = new Set<string>();
    this.space();
    if (this.text.charCodeAt(this.i) === 125) {
      this.i++;
      return;
    }
    for (;;) {
      this.space();
      const key = this.string(true);
      const at = path ? `${path}.${key}` : key;
      if (seen.has(key)) {
        if (!this.found.includes(at) && this.found.length < MAX_REPORTED) this.found.push(at);
      } else seen.add(key);
      this.space();
      this.i++; // the colon
      this.value(at);
      this.space();
      if (this.text.charCodeAt(this.i++) === 125) return;
    }
  }

  private array(path: string): void {
    this.i++;
    this.space();
    if (this.text.charCodeAt(this.i) === 93) {
      this.i++;
      return;
    }
    for (let n = 0; ; n++) {
      this.value(`${path}[${n}]`);
      this.space();
      if (this.text.charCodeAt(this.i++) === 93) return;
    }
  }
}
