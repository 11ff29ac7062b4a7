// What the journal stores of a request body holds no token, however the client escaped it (issue 27
// part 5): JWTs with their dots or any other character written as JSON `\u00XX` escapes, after a
// bearer scheme or a JSON escape such as `\n`, in JSON read as JSON and as raw text. Checked against
// the stored text (what GET /_sandbox/state and a shared sandbox's Redis get) and what reading shows.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bodyOf, requestTextWithoutSecrets } from '../../src/journal/redact.js';

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const jwt = `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64({ sub: 'someone', n: 12345 })}.${'s'.repeat(43)}`;
const parts = jwt.split('.');

/** The text as a JSON reader (and a URL reader, for `\\`) would read its escapes, twice over (shown bodies are JSON text of JSON text). */
function unescaped(text: string): string {
  const once = (s: string) => s.replaceAll('\\\\', '\\').replace(/\\u([0-9a-fA-F]{4})/g, (_m, hex) => String.fromCharCode(Number.parseInt(hex, 16)));
  return once(once(text));
}

const holdsToken = (text: string) => parts.some((part) => unescaped(text).includes(part));

describe('request bodies as the journal stores them', () => {
  it('hold no part of a token, whichever of its characters are escaped and wherever it sits', () => {
    fc.assert(
      fc.property(
        // Per character of the token: as is, \u00xx, \u00XX.
        fc.array(fc.integer({ min: 0, max: 2 }), { minLength: jwt.length, maxLength: jwt.length }),
        fc.constantFrom('value', 'key', 'nested', 'bearer', 'bearer\\t', 'after \\n'),
        fc.constantFrom('application/json', 'text/plain', null),
        fc.string({ maxLength: 4, unit: fc.constantFrom(' ', ':', ',', '/', '=', 'é') }),
        (escapes, where, contentType, before) => {
          const written = [...jwt]
            .map((char, i) => {
              const hex = char.charCodeAt(0).toString(16).padStart(4, '0');
              return escapes[i] === 0 ? char : `\\u${escapes[i] === 1 ? hex : hex.toUpperCase()}`;
            })
            .join('');
          const text = {
            value: `{"a":"${before}${written}"}`,
            key: `{"${before}${written}":1}`,
            nested: `{"a":{"b":["${written}"]}}`,
            bearer: `{"a":"Bearer ${written}"}`,
            'bearer\\t': `{"a":"Bearer\\t${written}"}`,
            'after \\n': `{"a":"x\\n${written}"}`,
          }[where] as string;
          const stored = requestTextWithoutSecrets(text, contentType);
          expect(holdsToken(stored), `stored: ${stored}`).toBe(false);
          expect(holdsToken(JSON.stringify(bodyOf(stored, contentType, stored.length, true)))).toBe(false);
        },
      ),
      { numRuns: 2000 },
    );
  });
});
