// Where the tests read the shared corpora: test/corpora (copied from ../shared by
// `npm run corpora:refresh`, see test/corpora/README.md), or $CONFORMANCE_DIR / $VALIDATION_DIR.
import { join, resolve } from 'node:path';

const CORPORA = resolve(import.meta.dirname, '..', 'corpora');

export const conformanceDir = (): string => resolve(process.env.CONFORMANCE_DIR ?? join(CORPORA, 'conformance'));
export const validationDir = (): string => resolve(process.env.VALIDATION_DIR ?? join(CORPORA, 'validation'));
/** the client contract the supported-features list is checked against */
export const contractFile = (): string => join(CORPORA, 'contract.md');
