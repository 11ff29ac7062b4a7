// Parses the JSON body and validates path, query, header and body against the operation's
// compiled schemas; every problem becomes one `details` item of a single 400.
import type { MiddlewareHandler } from 'hono';
import { validateRequest } from '../spec/operations.js';
import { ApiError } from './api-error.js';
import type { SandboxEnv } from './env.js';

export function validate(): MiddlewareHandler<SandboxEnv> {
  return async function validateAgainstSpec(c, next) {
    const operation = c.var.operation;
    const body = operation.hasBody ? await readJsonBody(c.req.raw.headers.get('content-type'), await c.req.text(), operation.bodyRequired) : undefined;
    const query = queryOf(c.req.url);
    const header = Object.fromEntries(c.req.raw.headers); // names arrive lower-cased
    const path = { ...c.var.pathParams };
    validateRequest(operation, { path, query, header, body });
    c.set('pathParams', path);
    c.set('query', query);
    c.set('headers', header);
    c.set('body', body);
    await next();
  };
}

/** The first value of each query parameter (repeats of a scalar parameter are ignored). */
function queryOf(url: string): Record<string, unknown> {
  const query: Record<string, unknown> = Object.create(null);
  const start = url.indexOf('?');
  if (start < 0) return query;
  for (const [key, value] of new URLSearchParams(url.slice(start + 1))) {
    if (!(key in query)) query[key] = value;
  }
  return query;
}

export async function readJsonBody(contentType: string | null, text: string, required: boolean): Promise<unknown> {
  if (text.trim() === '') {
    if (required) throw ApiError.badRequest('A JSON request body is required.', [{ location: 'body', pointer: '', type: 'missing', message: 'Send a JSON object as the request body.' }]);
    return undefined;
  }
  if (contentType && !/^application\/([a-z0-9.+-]*\+)?json\b/i.test(contentType.trim())) {
    throw ApiError.badRequest(`The request body must be JSON, sent with Content-Type: application/json (got ${contentType.slice(0, 100)}).`, [
      { location: 'header', pointer: '/content-type', type: 'content_type', message: 'Use Content-Type: application/json.' },
    ]);
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw ApiError.badRequest(`The request body is not valid JSON: ${(err as Error).message}.`, [
      { location: 'body', pointer: '', type: 'json_invalid', message: `Invalid JSON: ${(err as Error).message}.` },
    ]);
  }
}
