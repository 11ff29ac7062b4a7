// One log line per request, carrying the request id: at debug for answers below 400; at info for
// every 4xx and 5xx, with the error body's code and message, so a newcomer sees why a call failed
// without turning debug on (warn for a 5xx that no scenario asked for: a fault of the sandbox).
// Also the request count the shutdown summary reports. The path is logged without its query
// string, which may hold a client session token; the path and the error message without tokens
// (an id that is a token, echoed by a 404): `withoutTokens` is the journal's definition of a token,
// handed over by app.ts (logging may not import the journal, a folder of its layer).
import type { Level, Logger } from 'pino';
import type { Call } from '../http/call.js';
import { sentBody } from '../http/json-response.js';
import type { Step } from '../http/pipeline.js';
import type { RequestMetrics } from './metrics.js';

export interface RequestStats {
  requests: number;
  /** Counts and latencies by operation and status (GET /_sandbox/metrics). */
  metrics: RequestMetrics;
}

/** Longest error message logged: a validation answer may list many problems. */
const MAX_LOGGED_MESSAGE = 500;

/** Runs after requestId(), which notes when the request arrived. */
export function logRequests(logger: Logger, stats: RequestStats, withoutTokens: (text: string) => string = (text) => text): Step {
  return {
    name: 'request log',
    requires: ['request id'],
    before() {
      stats.requests++;
    },
    after(call) {
      const status = call.res.status;
      const ms = performance.now() - call.receivedAt;
      stats.metrics.record(call.operation?.id, status, ms / 1000);
      // Success answers: nothing at all unless debug is on (building the line costs more than the request).
      // A 5xx the tester asked for (a scenario, Prefer: code=) is not a fault of the sandbox.
      const level: Level = status < 400 ? 'debug' : status >= 500 && !call.scenario ? 'warn' : 'info';
      if (!logger.isLevelEnabled(level)) return;
      const line: Record<string, unknown> = {
        requestId: call.requestId,
        method: call.method,
        path: withoutTokens(new URL(call.url).pathname),
        status,
        ms: Math.round(ms * 10) / 10,
        namespace: call.ns?.name,
        operation: call.operation?.id,
      };
      let msg = `${line.method} ${line.path} ${status}`;
      if (status >= 400) {
        const error = errorOf(call);
        const [code, message] = [error.code, withoutTokens(error.message)];
        line.code = code;
        line.message = message;
        msg += ` ${code}: ${message}`;
      }
      logger[level](line, msg);
    },
  };
}

/** The code and message of the error body sent (the reference's error body, or a 422's items). */
function errorOf(call: Call): { code: string; message: string } {
  const sent = sentBody(call);
  let body: any;
  try {
    body = typeof sent === 'string' && sent ? JSON.parse(sent) : typeof sent === 'object' ? JSON.parse(sent.bytes.toString('utf8')) : undefined;
  } catch {
    body = undefined;
  }
  let code = 'unknown';
  let message = 'the answer has no error body';
  if (body && typeof body.code === 'string') {
    code = body.code;
    message = String(body.message ?? '');
  } else if (body && Array.isArray(body.detail)) {
    code = 'validation_error';
    message = body.detail.map((item: { msg?: unknown }) => String(item?.msg ?? '')).join('; ');
  } else if (call.res.status === 444) {
    code = 'connection_dropped';
    message = `scenario ${call.scenario} closed the connection without an answer`;
  }
  return { code, message: message.length > MAX_LOGGED_MESSAGE ? `${message.slice(0, MAX_LOGGED_MESSAGE)}...` : message };
}
