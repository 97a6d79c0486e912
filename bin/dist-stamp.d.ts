// Types of ./dist-stamp.js, which the launcher runs as plain JavaScript (no compiler in the path).
export declare const STAMP_FILE: string;
export declare function signatureOf(root: string, path: string): string | null;
export declare function stampText(inputs: Record<string, string | null>): string;
export declare function staleReason(root: string, distDir?: string): string | null;
