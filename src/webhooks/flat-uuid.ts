// Random (version 4) UUIDs as flat strings, for the ids every notification makes (the event's and
// each delivery's). crypto.randomUUID() joins its 20 pieces with `+`, which leaves a tree of about
// 15 string nodes: 490 heap bytes per id instead of 56, which a delivery record keeps (its id and
// its event's) through two young-generation collections and into the old one. Here the 36
// characters are written into a buffer and read out as one string; the randomness is the same
// (crypto.randomFillSync, drawn 256 ids at a time).
import { randomFillSync } from 'node:crypto';

const IDS_PER_FILL = 256;
const random = Buffer.alloc(16 * IDS_PER_FILL);
let next = random.length;
const text = Buffer.alloc(36);
const HEX = Buffer.from('0123456789abcdef');
const DASH = 0x2d;

export function flatUuid(): string {
  if (next === random.length) {
    randomFillSync(random);
    next = 0;
  }
  const from = next;
  next += 16;
  let at = 0;
  for (let i = 0; i < 16; i++) {
    let byte = random[from + i];
    if (i === 6)
      byte = (byte & 0x0f) | 0x40; // version 4
    else if (i === 8) byte = (byte & 0x3f) | 0x80; // RFC 4122 variant
    text[at++] = HEX[byte >> 4];
    text[at++] = HEX[byte & 15];
    if (i === 3 || i === 5 || i === 7 || i === 9) text[at++] = DASH;
  }
  return text.toString('latin1', 0, 36);
}
