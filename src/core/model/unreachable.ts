// The default of an exhaustive switch: it does not compile while a case is missing, and throws if
// a value outside the type gets in at run time anyway.
export function unreachable(value: never, what: string): never {
  throw new Error(`unexpected ${what}: ${String(value)}`);
}
