// The OpenAPI documents as served: byte for byte the files, except that each `servers` url names
// the address the request reached the sandbox at (scheme, host and port, from the Host header or
// HTTP/2 :authority and the connection's TLS), instead of the files' http://127.0.0.1:4010. So
// /docs "Try it out" and clients generated from the served document call the sandbox where it
// really is: another port, https with --tls, localhost, or the machine's address for a device.

/** The origin the documents are written with. */
export const DOCUMENT_ORIGIN = 'http://127.0.0.1:4010';

const SERVER_URL = `"url": "${DOCUMENT_ORIGIN}`;

/** Distinct origins kept per document: Host is the client's to choose, so the memo is bounded. */
const MAX_KEPT_ORIGINS = 32;

export interface ServedSpec {
  /** The document's text for a request that reached the sandbox at `origin` (e.g. https://localhost:4443). */
  textFor(origin: string): string;
}

export function servedSpec(name: string, text: string): ServedSpec {
  if (!text.includes(SERVER_URL)) throw new Error(`${name}: no servers url starting with ${DOCUMENT_ORIGIN} to point at the sandbox's address`);
  const parts = text.split(SERVER_URL);
  const kept = new Map<string, string>();
  return {
    textFor(origin) {
      if (origin === DOCUMENT_ORIGIN) return text;
      let served = kept.get(origin);
      if (served === undefined) {
        if (kept.size >= MAX_KEPT_ORIGINS) kept.clear();
        // JSON-escaped, although a parsed URL's origin holds no quote or backslash.
        served = parts.join(`"url": ${JSON.stringify(origin).slice(0, -1)}`);
        kept.set(origin, served);
      }
      return served;
    },
  };
}
