// `Prefer: code=429` as Prism users know it: ask for one of the operation's declared responses.
// Prism's other tokens (example=, dynamic=) and standard preferences (return=minimal) are accepted
// and ignored: the sandbox always answers from its store.
import { ApiError } from '../errors/api-error.js';

export interface Preference {
  /** The status asked for; null when the header asks for none. */
  code: number | null;
}

/** The answer for a request without the header (most requests): shared, never changed. */
const NO_PREFERENCE: Preference = Object.freeze({ code: null });

export function parsePrefer(header: string | undefined): Preference {
  if (!header) return NO_PREFERENCE;
  let code: number | null = null;
  for (const token of header.split(/[,;]/)) {
    const [rawName, ...rest] = token.split('=');
    const name = rawName.trim().toLowerCase();
    if (name !== 'code') continue;
    const value = rest
      .join('=')
      .trim()
      .replace(/^"(.*)"$/, '$1');
    if (!/^[1-5][0-9]{2}$/.test(value)) {
      throw ApiError.badRequest(`Prefer: code=${value.slice(0, 20)} is not an HTTP status code; write e.g. Prefer: code=429.`, [
        { location: 'header', pointer: '/prefer', type: 'prefer_code', message: 'code= takes a three-digit HTTP status.' },
      ]);
    }
    code = Number(value);
  }
  return { code };
}
