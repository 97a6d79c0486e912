// Shapes shared by the pure parts of apply (parse, identify, plan, diff) and the service around them.
import type { KindInfo } from '../model/kinds';

/** Where an object sits in the body: the YAML document (or JSON items index), and its item in a List. */
export interface Origin {
  document: number;
  item?: number;
}

/** One problem, naming the document, the object and the path inside the object. */
export interface ApplyIssue extends Partial<Origin> {
  path: string;
  message: string;
  kind?: string;
  namespace?: string;
  name?: string;
  /** where in the body, for problems of the YAML itself (1-based) */
  line?: number;
  column?: number;
}

export interface ManifestEntry extends Origin {
  object: unknown;
}

/** An entry whose kind, namespace and name are known. */
export interface IdentifiedEntry extends Origin {
  raw: Record<string, unknown>;
  info: KindInfo;
  namespace: string; // '' for cluster-scoped kinds
  name: string;
  stream: string;
}

export type ApplyAction = 'created' | 'configured' | 'unchanged' | 'pruned';

export class ApplyRejection extends Error {
  constructor(
    public readonly status: 400 | 403 | 409 | 413 | 415 | 422,
    message: string,
    public readonly issues: ApplyIssue[] = [],
  ) {
    super(message);
  }
}

/** "document 3, item 1 (HTTPRoute team-a/web)" */
export function describeIssueOrigin(i: ApplyIssue): string {
  const where: string[] = [];
  if (i.document !== undefined) where.push(`document ${i.document}${i.item !== undefined ? `, item ${i.item}` : ''}`);
  const obj = i.kind ? `${i.kind} ${i.namespace ? `${i.namespace}/` : ''}${i.name ?? '(no name)'}` : '';
  if (obj) where.push(where.length ? `(${obj})` : obj);
  return where.join(' ');
}

/** A one-line summary for problem+json detail: the first few issues in words. */
export function summarizeIssues(headline: string, issues: ApplyIssue[], max = 10): string {
  const parts = issues.slice(0, max).map((i) => {
    const origin = describeIssueOrigin(i);
    return `${origin}${origin ? ': ' : ''}${i.path ? `${i.path}: ` : ''}${i.message}`;
  });
  const more = issues.length > max ? `; and ${issues.length - max} more` : '';
  return `${headline}: ${parts.join('; ')}${more}`;
}
