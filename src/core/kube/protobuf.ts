// kubectl's typed clients (`kubectl auth can-i` among them) send built-in kinds as Kubernetes
// protobuf: the "k8s\0" magic, then a runtime.Unknown {typeMeta, raw}. Only the request bodies such
// clients post need reading here (answers go back as JSON, which they also accept), so this is a
// reader of the wire format and of the messages posted: SelfSubjectAccessReview, and the spec of
// SelfSubjectRulesReview (SelfSubjectReview has none).

const MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

export class ProtobufError extends Error {}

type Field = { no: number; wire: number; value: number | Buffer };

function fields(buf: Buffer): Field[] {
  const out: Field[] = [];
  let i = 0;
  const varint = (): number => {
    let v = 0;
    let mul = 1;
    for (let n = 0; n < 10; n++) {
      if (i >= buf.length) throw new ProtobufError('truncated varint');
      const b = buf[i++];
      v += (b & 0x7f) * mul;
      if (!(b & 0x80)) return v;
      mul *= 128;
    }
    throw new ProtobufError('varint too long');
  };
  while (i < buf.length) {
    const key = varint();
    const no = Math.floor(key / 8);
    const wire = key & 7;
    if (wire === 0) out.push({ no, wire, value: varint() });
    else if (wire === 2) {
      const len = varint();
      if (i + len > buf.length) throw new ProtobufError('truncated field');
      out.push({ no, wire, value: buf.subarray(i, i + len) });
      i += len;
    } else if (wire === 1) i += 8;
    else if (wire === 5) i += 4;
    else throw new ProtobufError(`unsupported wire type ${wire}`);
  }
  return out;
}

const str = (fs: Field[], no: number): string | undefined => {
  const f = fs.find((x) => x.no === no && x.wire === 2);
  return f ? (f.value as Buffer).toString('utf8') : undefined;
};
const msg = (fs: Field[], no: number): Field[] | undefined => {
  const f = fs.find((x) => x.no === no && x.wire === 2);
  return f ? fields(f.value as Buffer) : undefined;
};

export function isKubeProtobuf(buf: Buffer): boolean {
  return buf.length >= 4 && buf.subarray(0, 4).equals(MAGIC);
}

/** The kind and apiVersion of an enveloped object, and its raw message. */
export function unwrap(buf: Buffer): { apiVersion: string; kind: string; raw: Buffer } {
  if (!isKubeProtobuf(buf)) throw new ProtobufError('not a Kubernetes protobuf body (no k8s\\0 magic)');
  const unknown = fields(buf.subarray(4));
  const typeMeta = msg(unknown, 1) ?? [];
  const raw = unknown.find((f) => f.no === 2 && f.wire === 2)?.value as Buffer | undefined;
  return { apiVersion: str(typeMeta, 1) ?? '', kind: str(typeMeta, 2) ?? '', raw: raw ?? Buffer.alloc(0) };
}

/** SelfSubjectAccessReview's spec, as JSON would hold it. */
export function accessReviewSpec(raw: Buffer): { resourceAttributes?: Record<string, string>; nonResourceAttributes?: Record<string, string> } {
  const review = fields(raw);
  const spec = msg(review, 2) ?? [];
  const out: { resourceAttributes?: Record<string, string>; nonResourceAttributes?: Record<string, string> } = {};
  const ra = msg(spec, 1);
  if (ra) {
    const names = ['namespace', 'verb', 'group', 'version', 'resource', 'subresource', 'name'];
    out.resourceAttributes = {};
    names.forEach((n, i) => {
      const v = str(ra, i + 1);
      if (v !== undefined && v !== '') out.resourceAttributes![n] = v;
    });
  }
  const nra = msg(spec, 2);
  if (nra) out.nonResourceAttributes = { path: str(nra, 1) ?? '', verb: str(nra, 2) ?? '' };
  return out;
}

/** SelfSubjectRulesReview's spec ({namespace}), as JSON would hold it. */
export function rulesReviewSpec(raw: Buffer): { namespace?: string } {
  const spec = msg(fields(raw), 2) ?? [];
  const namespace = str(spec, 1);
  return namespace ? { namespace } : {};
}
