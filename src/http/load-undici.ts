// undici, loaded by its first user (a webhook attempt, a call to --upstream), not at start: a
// sandbox that sends neither never needs it, and loading it was a sixth of a start's CPU (45 of
// 340 ms, measured 2026-12-07).
import type * as Undici from 'undici';

/**
 * The undici module. Bundled (dist/bundle), a dynamic import of this CommonJS package gives its
 * exports as `default` only; run from dist/src, Node gives them by name and as `default` too.
 */
export async function loadUndici(): Promise<typeof Undici> {
  const loaded = (await import('undici')) as typeof Undici & { default?: typeof Undici };
  return loaded.default ?? loaded;
}
