// Bytes that must be UTF-8 (a JSON body, a data file), decoded strictly: a byte that is not part of
// a well-formed character is reported with its offset, never turned into U+FFFD and stored as if
// the client had sent that. The strict decoder costs what the lenient one does; the offset is
// looked for only when decoding fails.

const strict = new TextDecoder('utf-8', { fatal: true });
const lenient = new TextDecoder('utf-8');

/** The text of `bytes`, and the offset of the first byte that is not well-formed UTF-8 (null: none; the text then has U+FFFD there). */
export function decodeUtf8(bytes: Uint8Array): { text: string; invalidAt: number | null } {
  try {
    return { text: strict.decode(bytes), invalidAt: null };
  } catch {
    return { text: lenient.decode(bytes), invalidAt: invalidUtf8Offset(bytes) ?? 0 };
  }
}

/** Where well-formed UTF-8 (RFC 3629: no overlong forms, no surrogates, at most U+10FFFF) stops, or null when it does not. */
export function invalidUtf8Offset(bytes: Uint8Array): number | null {
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i];
    if (b < 0x80) {
      i++;
      continue;
    }
    // The continuation bytes a lead byte needs, and the range its first continuation byte must fall in.
    let need: number;
    let low = 0x80;
    let high = 0xbf;
    if (b >= 0xc2 && b <= 0xdf) need = 1;
    else if (b >= 0xe0 && b <= 0xef) {
      need = 2;
      if (b === 0xe0) low = 0xa0;
      if (b === 0xed) high = 0x9f;
    } else if (b >= 0xf0 && b <= 0xf4) {
      need = 3;
      if (b === 0xf0) low = 0x90;
      if (b === 0xf4) high = 0x8f;
    } else return i;
    for (let k = 1; k <= need; k++) {
      const c = bytes[i + k];
      if (c === undefined || c < (k === 1 ? low : 0x80) || c > (k === 1 ? high : 0xbf)) return i;
    }
    i += need + 1;
  }
  return null;
}

/** A sentence naming the offending byte, for an error message. */
export function invalidUtf8Text(bytes: Uint8Array, offset: number): string {
  return `the byte at offset ${offset} (0x${bytes[offset].toString(16).padStart(2, '0')}) is not the start of a well-formed UTF-8 character`;
}
