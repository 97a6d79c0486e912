// /openapi/v2 as kubectl asks for it (Accept: application/com.github.proto-openapi.spec.v2@v1.0+protobuf):
// the Swagger 2.0 document as the protobuf message openapi.v2.Document of google/gnostic-models
// (OpenAPIv2.proto). client-go reads /openapi/v2 in no other form. Only the parts of the message a
// Kubernetes document uses are written; values of free form (default, enum, vendor extensions) are
// gnostic's Any with their YAML text, which JSON is.
import type { Json } from './openapi-schema';

class Writer {
  // one growing buffer per message: a submessage is written on its own, then copied in with its length
  private buf = Buffer.allocUnsafe(64);
  private at = 0;

  private room(n: number): void {
    if (this.at + n <= this.buf.length) return;
    const bigger = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.at + n));
    this.buf.copy(bigger, 0, 0, this.at);
    this.buf = bigger;
  }

  private varint(n: number): void {
    this.room(10);
    while (n >= 0x80) {
      this.buf[this.at++] = (n % 0x80) | 0x80;
      n = Math.floor(n / 0x80);
    }
    this.buf[this.at++] = n;
  }

  private tag(no: number, wire: number): void {
    this.varint(no * 8 + wire);
  }

  bytes(no: number, b: Buffer): this {
    this.tag(no, 2);
    this.varint(b.length);
    this.room(b.length);
    b.copy(this.buf, this.at);
    this.at += b.length;
    return this;
  }

  string(no: number, s: unknown): this {
    if (typeof s === 'string' && s !== '') this.bytes(no, Buffer.from(s, 'utf8'));
    return this;
  }

  strings(no: number, list: unknown): this {
    if (Array.isArray(list)) for (const s of list) this.bytes(no, Buffer.from(String(s), 'utf8'));
    return this;
  }

  bool(no: number, b: unknown): this {
    if (b === true) {
      this.tag(no, 0);
      this.varint(1);
    }
    return this;
  }

  int(no: number, n: unknown): this {
    if (typeof n === 'number' && Number.isInteger(n) && n > 0) {
      this.tag(no, 0);
      this.varint(n);
    }
    return this;
  }

  double(no: number, n: unknown): this {
    if (typeof n === 'number') {
      this.tag(no, 1);
      this.room(8);
      this.buf.writeDoubleLE(n, this.at);
      this.at += 8;
    }
    return this;
  }

  message(no: number, m: Buffer | undefined): this {
    if (m) this.bytes(no, m);
    return this;
  }

  messages(no: number, ms: Buffer[]): this {
    for (const m of ms) this.bytes(no, m);
    return this;
  }

  done(): Buffer {
    return this.buf.subarray(0, this.at);
  }
}

const w = () => new Writer();

/** gnostic Any: the value as YAML text (JSON is YAML). */
const any = (v: unknown): Buffer => w().string(2, JSON.stringify(v)).done();

/** NamedAny entries for a node's x- keys. */
function vendorExtensions(node: Json): Buffer[] {
  return Object.entries(node)
    .filter(([k]) => k.startsWith('x-'))
    .map(([k, v]) => w().string(1, k).message(2, any(v)).done());
}

function schema(s: Json): Buffer {
  const m = w()
    .string(1, s.$ref).string(2, s.format).string(3, s.title).string(4, s.description)
    .message(5, s.default === undefined ? undefined : any(s.default))
    .double(6, s.multipleOf).double(7, s.maximum).bool(8, s.exclusiveMaximum).double(9, s.minimum).bool(10, s.exclusiveMinimum)
    .int(11, s.maxLength).int(12, s.minLength).string(13, s.pattern).int(14, s.maxItems).int(15, s.minItems).bool(16, s.uniqueItems)
    .int(17, s.maxProperties).int(18, s.minProperties).strings(19, s.required);
  if (Array.isArray(s.enum)) m.messages(20, s.enum.map(any));
  if (s.additionalProperties !== undefined) {
    m.message(21, typeof s.additionalProperties === 'object'
      ? w().message(1, schema(s.additionalProperties)).done()
      : w().bool(2, s.additionalProperties).done());
  }
  if (s.type !== undefined) m.message(22, w().strings(1, [s.type]).done());
  if (s.items) m.message(23, w().message(1, schema(s.items)).done());
  if (s.properties) m.message(25, w().messages(1, Object.entries(s.properties).map(([k, v]) => named(k, schema(v)))).done());
  return m.messages(31, vendorExtensions(s)).done();
}

const named = (name: string, value: Buffer): Buffer => w().string(1, name).message(2, value).done();

function parameter(p: Json): Buffer {
  if (p.in === 'body') {
    const body = w().string(1, p.description).string(2, p.name).string(3, p.in).bool(4, p.required).message(5, schema(p.schema)).done();
    return w().message(1, w().message(1, body).done()).done(); // ParametersItem.parameter.body_parameter
  }
  // QueryParameterSubSchema = 3 and PathParameterSubSchema = 4 of NonBodyParameter: their first
  // fields are numbered alike (required, in, description, name), then type is 6 and 5
  const sub = w().bool(1, p.required).string(2, p.in).string(3, p.description).string(4, p.name);
  if (p.in === 'query') sub.string(6, p.type).bool(20, p.uniqueItems);
  else sub.string(5, p.type);
  const nonBody = w().message(p.in === 'query' ? 3 : 4, sub.done()).done();
  return w().message(1, w().message(2, nonBody).done()).done();
}

function operation(op: Json): Buffer {
  const responses = w().messages(1, Object.entries(op.responses ?? {}).map(([code, r]: [string, Json]) => {
    const response = w().string(1, r.description).message(2, r.schema ? w().message(1, schema(r.schema)).done() : undefined).done();
    return named(code, w().message(1, response).done());
  })).done();
  return w()
    .strings(1, op.tags).string(2, op.summary).string(3, op.description).string(5, op.operationId)
    .strings(6, op.produces).strings(7, op.consumes)
    .messages(8, (op.parameters ?? []).map(parameter))
    .message(9, responses)
    .strings(10, op.schemes)
    .messages(13, vendorExtensions(op))
    .done();
}

const METHODS: Record<string, number> = { get: 2, put: 3, post: 4, delete: 5, options: 6, head: 7, patch: 8 };

function pathItem(item: Json): Buffer {
  const m = w();
  for (const [method, no] of Object.entries(METHODS)) if (item[method]) m.message(no, operation(item[method]));
  return m.messages(9, (item.parameters ?? []).map(parameter)).messages(10, vendorExtensions(item)).done();
}

/** The protobuf form of a Swagger 2.0 document. */
export function swaggerToProtobuf(doc: Json): Buffer {
  const info = w().string(1, doc.info?.title).string(2, doc.info?.version).string(3, doc.info?.description).done();
  const paths = w().messages(2, Object.entries(doc.paths ?? {}).map(([p, item]) => named(p, pathItem(item)))).done();
  const definitions = w().messages(1, Object.entries(doc.definitions ?? {}).map(([n, s]) => named(n, schema(s)))).done();
  return w()
    .string(1, doc.swagger).message(2, info).strings(6, doc.consumes).strings(7, doc.produces)
    .message(8, paths).message(9, definitions)
    .messages(16, vendorExtensions(doc))
    .done();
}
