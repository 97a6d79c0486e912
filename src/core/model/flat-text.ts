// JSON.stringify builds a long result from pieces joined as a tree, and the first read of it whole
// (its digest, a Map lookup) copies it into one piece but leaves the tree's root in front of that
// copy for as long as the string lives: 32 bytes, some six a route for the texts a table's parts
// keep. Texts kept as long as their table is are copied into one piece when made instead.

const encoder = new TextEncoder();
// a text that begins with a byte-order mark keeps it
const decoder = new TextDecoder('utf-8', { ignoreBOM: true });

/** The same text, held in one piece. For well-formed text (JSON.stringify's always is). */
export const flatText = (text: string): string => (text.length < 13 ? text : decoder.decode(encoder.encode(text)));
