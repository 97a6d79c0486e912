// JSON text walked by its structure without building its values: where each member of an object,
// or each element of an array, begins and ends. For texts JSON.stringify wrote (no whitespace),
// such as a stored table of 60 MB, whose values are then parsed one small piece at a time instead
// of as one tree of objects several times the text's size.

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;

const LITERAL = /^(?:-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null)$/;

function malformed(at: number, what: string): Error {
  return new SyntaxError(`malformed JSON at ${at}: ${what}`);
}

/** Where the string that starts at `i` (its opening quote) ends: just past its closing quote. */
function stringEnd(t: string, i: number): number {
  for (let j = i + 1; j < t.length; j++) {
    const c = t.charCodeAt(j);
    if (c === BACKSLASH) j++;
    else if (c === QUOTE) return j + 1;
  }
  throw malformed(i, 'a string that does not end');
}

/** Where the value that starts at `i` ends (just past it). */
export function valueEnd(t: string, i: number): number {
  const c = t.charCodeAt(i);
  if (c === QUOTE) return stringEnd(t, i);
  if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
    let depth = 0;
    for (let j = i; j < t.length; j++) {
      const d = t.charCodeAt(j);
      if (d === QUOTE) j = stringEnd(t, j) - 1;
      else if (d === OPEN_OBJECT || d === OPEN_ARRAY) depth++;
      else if ((d === CLOSE_OBJECT || d === CLOSE_ARRAY) && --depth === 0) return j + 1;
    }
    throw malformed(i, 'an object or array that does not end');
  }
  // a number, true, false or null: up to what follows a value
  let j = i;
  while (j < t.length) {
    const d = t.charCodeAt(j);
    if (d === COMMA || d === CLOSE_OBJECT || d === CLOSE_ARRAY) break;
    j++;
  }
  if (!LITERAL.test(t.slice(i, j))) throw malformed(i, 'a value expected');
  return j;
}

/** The members of the object at `i`: each key, and where its value begins and ends. */
export function* objectMembers(t: string, i: number): Generator<[key: string, from: number, to: number]> {
  if (t.charCodeAt(i) !== OPEN_OBJECT) throw malformed(i, 'an object expected');
  let j = i + 1;
  if (t.charCodeAt(j) === CLOSE_OBJECT) return;
  for (;;) {
    if (t.charCodeAt(j) !== QUOTE) throw malformed(j, 'a key expected');
    const keyEnd = stringEnd(t, j);
    const raw = t.slice(j + 1, keyEnd - 1);
    const key = raw.includes('\\') ? (JSON.parse(t.slice(j, keyEnd)) as string) : raw;
    if (t.charCodeAt(keyEnd) !== COLON) throw malformed(keyEnd, '":" expected');
    const from = keyEnd + 1;
    const to = valueEnd(t, from);
    yield [key, from, to];
    const next = t.charCodeAt(to);
    if (next === CLOSE_OBJECT) return;
    if (next !== COMMA) throw malformed(to, '"," or "}" expected');
    j = to + 1;
  }
}

/** The elements of the array at `i`: where each begins and ends. */
export function* arrayElements(t: string, i: number): Generator<[from: number, to: number]> {
  if (t.charCodeAt(i) !== OPEN_ARRAY) throw malformed(i, 'an array expected');
  let j = i + 1;
  if (t.charCodeAt(j) === CLOSE_ARRAY) return;
  for (;;) {
    const to = valueEnd(t, j);
    yield [j, to];
    const next = t.charCodeAt(to);
    if (next === CLOSE_ARRAY) return;
    if (next !== COMMA) throw malformed(to, '"," or "]" expected');
    j = to + 1;
  }
}

/** Sets a member as JSON.parse would: "__proto__" as an own member, not the object's prototype. */
export function setMember(o: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(o, key, { value, enumerable: true, writable: true, configurable: true });
  else o[key] = value;
}
