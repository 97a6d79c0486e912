// The snapshot body a proxy receives, in one place: its layout, the Secret digests its hash covers
// (the hash itself is over the table's parts: ./table-hash), and where the Secret data goes for
// the Gateway's own proxies. The body is assembled from the table's JSON text (compile serializes
// it once, natively) rather than by stringifying a Snapshot object: a large table is serialized
// once, and the stored tail and the delivered body both reuse it.
//
//   body    = head + version + tail
//   head    = {"gateway":{"namespace":NS,"name":NAME},"version":
//   tail    = ,"hash":HASH,"table":TABLE}
//   proxies = body without its closing brace + ,"secrets":[...]}
//
// The store keeps the tail (it holds everything large) and rebuilds the head, which needs the
// version only the store's write knows.
import { createHash } from 'node:crypto';
import type { components } from '../../generated/api';
import { canonicalJson } from '../objects/canonical';
import { idsOf, type Part, type PartList, type TableParts } from './table-parts';

export type Snapshot = components['schemas']['Snapshot'];
export type SnapshotSecret = components['schemas']['SnapshotSecret'];
type CompiledTable = components['schemas']['CompiledTable'];

/** A Secret the table's listeners use, as the hash covers it: the digest of its data, never the data. */
export interface SecretDigest {
  namespace: string;
  name: string;
  digest: string;
}

export function snapshotHead(namespace: string, name: string): string {
  return `${JSON.stringify({ gateway: { namespace, name } }).slice(0, -1)},"version":`;
}

export function snapshotTail(hash: string, tableText: string): string {
  return `,"hash":${JSON.stringify(hash)},"table":${tableText}}`;
}

/** The table's text in a tail (the hash before it is a hex string: the first "table" member is the tail's own). */
export function tableTextOfTail(tail: string): string {
  const member = ',"table":';
  const at = tail.indexOf(member);
  if (at < 0 || tail.charCodeAt(tail.length - 1) !== 0x7d) throw new Error('not a snapshot tail: no table in it');
  return tail.slice(at + member.length, -1);
}

/** The body as JSON.stringify({ gateway, version, hash, table }) would write it. */
export function snapshotBody(namespace: string, name: string, version: number, tail: string): string {
  return `${snapshotHead(namespace, name)}${version}${tail}`;
}

/** The digest of one Secret's data: its canonical JSON, so the order a client wrote keys in does not count. */
export function secretDigest(data: Record<string, string> | undefined): string {
  return createHash('sha256').update(canonicalJson(data ?? {})).digest('hex');
}

/** In namespace/name order, as the hash takes them. */
export function secretDigests(secrets: readonly { metadata: { namespace?: string; name: string }; data?: Record<string, string> }[]): SecretDigest[] {
  return secrets
    .map((sec) => ({ namespace: sec.metadata.namespace ?? '', name: sec.metadata.name, digest: secretDigest(sec.data) }))
    .sort((a, b) => `${a.namespace}/${a.name}`.localeCompare(`${b.namespace}/${b.name}`));
}

/** Whether a body can name a Secret at all: when not, nothing needs to be parsed to know it names none. */
export function mayReferenceSecrets(body: string): boolean {
  return body.includes('"certificateRefs"') || body.includes('"backendClientCertificate"') || body.includes('"caCertificateSecrets"');
}

/**
 * The Secrets a table names (namespace/name, once each; namespace defaults to the Gateway's): its
 * listeners' certificates, the backend client certificate, and the CA Secrets of backend TLS.
 */
export function secretRefsOf(table: Pick<CompiledTable, 'listeners' | 'backendClientCertificate' | 'rules'> | undefined, gatewayNamespace: string): { namespace: string; name: string }[] {
  const refs = new Map<string, { namespace: string; name: string }>();
  const add = (r: { namespace?: string; name: string }) => {
    const namespace = r.namespace ?? gatewayNamespace;
    refs.set(`${namespace}/${r.name}`, { namespace, name: r.name });
  };
  for (const l of table?.listeners ?? []) for (const r of l.tls?.certificateRefs ?? []) add(r);
  if (table?.backendClientCertificate) add(table.backendClientCertificate);
  const backendSecrets = (b: CompiledTable['rules'][number]['backends'][number]) => { for (const r of b.tls?.caCertificateSecrets ?? []) add(r); };
  for (const rule of table?.rules ?? []) {
    for (const b of rule.backends ?? []) backendSecrets(b);
    for (const f of rule.filters ?? []) if (f.requestMirror) backendSecrets(f.requestMirror.backend);
    for (const b of rule.backends ?? []) for (const f of b.filters ?? []) if (f.requestMirror) backendSecrets(f.requestMirror.backend);
  }
  return [...refs.values()];
}

// A part names a Secret when its text does (a part held as its text is parsed only then). Rule
// lists known to name none: a list made from one of them by a delta is known from the delta's new
// parts alone (noteNoSecretsCarried), so a table of 50,000 routes is not read whole per version.
const namesSecrets = (p: Part): boolean => mayReferenceSecrets(p.text);
const NAMING_NONE = new WeakSet<PartList>();

function rulesNamingSecrets(l: PartList): Part[] {
  if (NAMING_NONE.has(l)) return [];
  const out: Part[] = [];
  for (const id of idsOf(l)) {
    const p = l.parts.get(id)!;
    if (namesSecrets(p)) out.push(p);
  }
  if (out.length === 0) NAMING_NONE.add(l);
  return out;
}

/** `next` was made from `base` by adding or replacing `added` (and removing parts). */
export function noteNoSecretsCarried(next: PartList, base: PartList, added: readonly Part[]): void {
  if (NAMING_NONE.has(base) && !added.some(namesSecrets)) NAMING_NONE.add(next);
}

/** secretRefsOf for a table given as its parts (./table-parts), read off the parts' items without making the table. */
export function secretRefsOfParts(p: TableParts, gatewayNamespace: string): { namespace: string; name: string }[] {
  return secretRefsOf({
    listeners: p.listeners.ids.map((id) => p.listeners.parts.get(id)!.item) as unknown as CompiledTable['listeners'],
    backendClientCertificate: p.head.item.backendClientCertificate as CompiledTable['backendClientCertificate'],
    rules: rulesNamingSecrets(p.rules).map((r) => r.item) as unknown as CompiledTable['rules'],
  }, gatewayNamespace);
}

export function parseSnapshot(body: string): Snapshot {
  return JSON.parse(body) as Snapshot;
}

/**
 * The body for the Gateway's proxies: `secrets` added as the last member. The body is not parsed
 * again: every body this module makes ends with the brace that closes it, and the Secrets go just
 * before it. The slice copies a body joined from its parts (6 MB at 5,000 routes): a writer that
 * can take the text in pieces is given secretDataPieces instead.
 */
export function withSecretData(body: string, secrets: readonly SnapshotSecret[]): string {
  return textOfPieces(secretDataPieces(body, secrets));
}

/**
 * withSecretData as text pieces written one after the other (see sseLineFrame): the body without
 * its closing brace, then the Secrets with it. The body is not sliced: a slice of a body joined
 * from its parts is a copy of all of it.
 */
export function secretDataPieces(body: string, secrets: readonly SnapshotSecret[]): [TextPiece, TextPiece] {
  if (body.charCodeAt(body.length - 1) !== 0x7d) throw new Error('not a snapshot body: it does not end with "}"');
  return [{ text: body, drop: 1 }, { text: `,"secrets":${JSON.stringify(secrets)}}` }];
}

/** A piece of a text written out in pieces: `text` without its last `drop` characters (ASCII ones). */
export interface TextPiece {
  text: string;
  drop?: number;
}

/** The text the pieces make, joined. */
export function textOfPieces(pieces: readonly TextPiece[]): string {
  return pieces.map((p) => (p.drop ? p.text.slice(0, -p.drop) : p.text)).join('');
}
