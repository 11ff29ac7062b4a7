// The numbers of webhook delivery, documented in docs/webhooks.md and openapi.json
// (x-sandbox-webhooks): change them there too.

/**
 * Waits after failed attempts 1, 2, ... on the namespace clock (POST /_sandbox/clock/advance drives
 * them): 1 min, 5 min, 30 min, 2 h, 5 h, 10 h, 24 h. After the 8th attempt fails the delivery ends
 * `failed` (a manual retry may still send it again).
 */
export const BACKOFF_MS: readonly number[] = [60_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 86_400_000];
export const MAX_ATTEMPTS = BACKOFF_MS.length + 1;

/**
 * Attempts in flight at once per namespace; the others wait their turn in due order. Enough to keep
 * pace with a load generator's 50 connections saturating the API while each notification takes a
 * round trip through two busy event loops: with 64 (and the same in connections), a third of the
 * notifications were refused past MAX_PENDING; with 16, two thirds.
 */
export const IN_FLIGHT = 256;

/** Connections to one receiver (scheme, host and port) at once per namespace, kept alive. */
export const CONCURRENCY = 64;

/**
 * Deliveries waiting (first attempt or retry) per namespace. Past it, a new delivery is recorded
 * `failed` with error queue_full, never sent, and a warning is logged (at most one line per 10 s).
 */
export const MAX_PENDING = 1_000;

/** Finished deliveries (succeeded, failed, cancelled) kept per namespace for the list; the oldest go first. */
export const MAX_FINISHED = 1_000;

/** Bytes of a receiver's answer kept with the attempt. */
export const EXCERPT_BYTES = 1_024;

/** Bytes of an answer's body read at most (the rest dropped); past them, the connection is closed. */
export const MAX_ANSWER_BYTES = 65_536;

/** Most time a behaviour delay may hold a delivery (namespace clock). */
export const MAX_DELAY_MS = 86_400_000;
