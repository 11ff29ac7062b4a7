// Every JSON body the sandbox writes goes through here: the text is serialized once and kept on the
// context, so the journal can record it without cloning and re-reading the response stream.
import type { Context } from 'hono';
import type { SandboxEnv } from './env.js';

export function jsonResponse(c: Context<SandboxEnv>, body: unknown, status: number): Response {
  const text = JSON.stringify(body);
  const res = c.body(text, status as 200, { 'content-type': 'application/json' });
  c.set('sentJson', { res, text });
  return res;
}

/** The JSON text of the response, when it is still the one `jsonResponse` made (no rewrite since). */
export function sentJsonText(c: Context<SandboxEnv>): string | undefined {
  const sent = c.get('sentJson');
  return sent && sent.res === c.res ? sent.text : undefined;
}
