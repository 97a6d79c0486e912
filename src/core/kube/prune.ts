// fieldValidation=Ignore|Warn: kube-apiserver drops the fields no schema knows and keeps the rest.
// Here the validator names them (`unknown field "spec.rules[0].foo"`); this removes them by path.

/** The paths of the unknown fields among field errors, or [] when there are other errors too. */
export function unknownFieldPaths(errors: readonly { path: string; message: string }[]): string[] {
  if (errors.length === 0 || !errors.every((e) => e.message.startsWith('unknown field'))) return [];
  return errors.map((e) => e.path);
}

function steps(path: string): (string | number)[] {
  const out: (string | number)[] = [];
  for (const m of path.matchAll(/([^.[\]]+)|\[(\d+)\]|\[([^\]]*)\]/g)) {
    if (m[1] !== undefined) out.push(m[1]);
    else if (m[2] !== undefined) out.push(Number(m[2]));
    else out.push(m[3].replace(/^["']|["']$/g, ''));
  }
  return out;
}

/** A copy of `obj` without the fields at `paths` (a path that names nothing is ignored). */
export function withoutPaths<T>(obj: T, paths: readonly string[]): T {
  const copy = structuredClone(obj);
  for (const path of paths) {
    const s = steps(path);
    // any: walking arbitrary JSON by path
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    let at: any = copy;
    for (let i = 0; i < s.length - 1 && at !== undefined && at !== null; i++) at = at[s[i]];
    if (at && typeof at === 'object' && !Array.isArray(at)) delete at[s[s.length - 1] as string];
  }
  return copy;
}
