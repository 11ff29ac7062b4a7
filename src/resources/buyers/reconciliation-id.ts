// A buyer's reconciliation_id: "the base62 encoded buyer ID", as the official clients describe it
// (gr4vy 2.4.27's Buyer model), a shorter form of the id sent to connectors. The alphabet and the
// padding are not documented: 0-9A-Za-z, left-padded to 22 characters (2^128 < 62^22), see
// docs/api-decisions.md.
import { createHash } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const LENGTH = 22;
const HEX_UUID = /^[0-9a-f]{32}$/;

/** The reconciliation id of the buyer `id`: its 128 bits in base62 (an id that is not a UUID: the first 128 bits of its SHA-256). */
export function reconciliationIdOf(id: string): string {
  const hex = id.replaceAll('-', '').toLowerCase();
  const bits = HEX_UUID.test(hex) ? hex : createHash('sha256').update(id).digest('hex').slice(0, 32);
  let n = BigInt(`0x${bits}`);
  let out = '';
  while (n > 0n) {
    out = ALPHABET[Number(n % 62n)] + out;
    n /= 62n;
  }
  return out.padStart(LENGTH, '0');
}
