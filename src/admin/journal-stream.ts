// GET /_sandbox/requests/stream: the journal live, as server-sent events (what the console's
// Requests page follows). Same filters as GET /_sandbox/requests; new matching entries arrive in
// batches at most BATCH_MS apart, the newest MAX_PER_BATCH of each. A connection that does not
// read (a browser tab in the background, a slow link) never slows the API: past QUEUE_BYTES
// waiting to be sent, entries are dropped for it, and a `dropped` event says how many. A stream
// following one namespace keeps it in use (never evicted while open); should it be dropped anyway
// (DELETE, or handed to another node), the stream hears `reload`, as for a cleared journal. Entries
// the journal itself drops (its entry count or byte budget reached) are told as `dropped` too, with
// reason `journal_full`.

import type { JournalView } from '../journal/entry.js';
import { JournalFollower, type JournalFull } from '../journal/feed.js';
import { entryFilter, type JournalFilter } from '../journal/filters.js';
import { JOURNAL, type Journal } from '../journal/journal.js';
import { journalNamespaces } from './journal.js';
import type { AdminHandlerMap } from './types.js';

/** How long changes gather before they are sent: rows appear within a tenth of a second. */
export const BATCH_MS = 100;
/** Most entries one batch sends (a thousand a second): no one reads more, and each costs the server. */
export const MAX_PER_BATCH = 100;
/** Bytes that may wait to be sent on one connection before its entries are dropped. */
export const QUEUE_BYTES = 1024 * 1024;
/** A comment line this often keeps proxies and browsers from closing an idle stream. */
const KEEP_ALIVE_MS = 15_000;

const encoder = new TextEncoder();

/** One server-sent event: its name and JSON data on one line (JSON has no raw line breaks). */
function event(name: string, data: unknown): Uint8Array {
  return encoder.encode(`event: ${name}\ndata: ${JSON.stringify(data)}\n\n`);
}

/** The `reload` event: the journal was cleared or replaced, or its namespace dropped (`reason` says which). */
function reloadOf(namespace: string, dropped: boolean) {
  return dropped
    ? {
        namespace,
        reason: 'dropped',
        message: `Namespace ${namespace} was dropped (deleted, evicted, or handed to another node) with its journal: read it again; a namespace made again under that name is followed from its first request.`,
      }
    : { namespace, reason: 'cleared', message: `The journal of namespace ${namespace} was cleared or replaced: read it again.` };
}

/** The `dropped` event for entries the journal itself let go: its entry count or byte budget was reached. */
function journalFullOf({ namespace, count, total }: JournalFull) {
  return {
    reason: 'journal_full',
    namespace,
    count,
    total,
    message: `The journal of namespace ${namespace} was full (its entry count, --journal-size, or its 16 MiB): its ${count} oldest request${count === 1 ? ' was' : 's were'} dropped (${total} since the namespace was made).`,
  };
}

export const journalStreamHandlers: AdminHandlerMap = {
  streamRequests(ctx) {
    const namespaces = journalNamespaces(ctx); // another namespace, or all: at the root only (403)
    const wanted: string = ctx.query.namespace ?? ctx.ns.name;
    const view: JournalView = ctx.query.view ?? 'full';
    const filter = entryFilter(ctx.query as JournalFilter);
    // With filters, a busy batch is read newest first only until it has its fill: what it skipped may not all have matched.
    const filtered = ['method', 'path', 'operation_id', 'status', 'scenario', 'merchant_account_id'].some((name) => ctx.query[name] !== undefined);
    const existing = namespaces.map((ns) => ns.existingPart(JOURNAL)).filter((j): j is Journal => j !== undefined);
    let follower: JournalFollower | undefined;
    let keepAlive: NodeJS.Timeout | undefined;
    // What the client missed since the last `dropped` event: told as soon as there is room.
    let missed = 0;
    const room = (controller: ReadableStreamDefaultController<Uint8Array>) => (controller.desiredSize ?? 0) > 0;
    const tellMissed = (controller: ReadableStreamDefaultController<Uint8Array>) => {
      if (!missed || !room(controller)) return;
      controller.enqueue(
        event('dropped', {
          reason: 'not_sent',
          count: missed,
          message: `${filtered ? 'Up to ' : ''}${missed} request${missed === 1 ? ' was' : 's were'} not sent: more than ${MAX_PER_BATCH} arrived within ${BATCH_MS} ms, or this connection could not take them as fast. The journal has them: GET /_sandbox/requests.`,
        }),
      );
      missed = 0;
    };

    const stream = new ReadableStream<Uint8Array>(
      {
        start(controller) {
          controller.enqueue(encoder.encode('retry: 1000\n\n'));
          controller.enqueue(event('ready', { namespace: wanted, view, batch_ms: BATCH_MS, max_per_batch: MAX_PER_BATCH }));
          // The namespace followed by name is in use while the stream is open; `*` follows whatever exists and pins none.
          const release = wanted === '*' ? null : ctx.deps.namespaces.watch(wanted);
          follower = new JournalFollower(
            ctx.deps.journalFeed,
            { namespace: wanted === '*' ? () => true : (name) => name === wanted, filter, view, maxPerBatch: MAX_PER_BATCH, batchMs: BATCH_MS },
            existing,
            (batch) => {
              for (const namespace of batch.reloaded) controller.enqueue(event('reload', reloadOf(namespace, batch.dropped.includes(namespace))));
              for (const full of batch.full) controller.enqueue(event('dropped', journalFullOf(full)));
              missed += batch.missed;
              for (const entry of batch.entries) {
                if (room(controller)) controller.enqueue(event('request', entry));
                else missed++;
              }
              tellMissed(controller);
            },
            () => {
              release?.();
              clearInterval(keepAlive);
              try {
                controller.close();
              } catch {
                // already cancelled by the client
              }
            },
          );
          keepAlive = setInterval(() => {
            if (room(controller)) controller.enqueue(encoder.encode(': keep-alive\n\n'));
          }, KEEP_ALIVE_MS).unref();
        },
        // Called once what waited has been sent: the client is reading again, so it hears what it missed.
        pull(controller) {
          tellMissed(controller);
        },
        cancel() {
          follower?.close();
        },
      },
      new ByteLengthQueuingStrategy({ highWaterMark: QUEUE_BYTES }),
    );
    return {
      response: new Response(stream, {
        status: 200,
        // connection: close, so that a stream ended by the sandbox closing leaves no keep-alive connection holding the server open.
        headers: {
          'content-type': 'text/event-stream; charset=utf-8',
          'cache-control': 'no-cache',
          connection: 'close',
          'x-accel-buffering': 'no',
          'x-request-id': ctx.requestId,
        },
      }),
    };
  },
};
