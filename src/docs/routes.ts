// The API reference: /docs (payments API) and /docs/admin (control API) render the served
// /openapi.json and /openapi.admin.json with Swagger UI, whose files come from /docs/assets. No
// auth: these are documents, not operations. Mounted before operation matching in createApp.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Context, Hono, type MiddlewareHandler } from 'hono';
import { ApiError } from '../errors/api-error.js';
import type { SandboxEnv } from '../http/call.js';
import { packageRoot } from '../spec/load-spec.js';
import { docsPage } from './page.js';
import { servedSpec } from './served-spec.js';
import { swaggerAsset } from './swagger-assets.js';

export const SPEC_FILES = ['openapi.json', 'openapi.admin.json'] as const;

/** `before`: the sandbox's first steps (request id, log, CORS, body limit), for these routes only. */
export function docsRoutes(before: MiddlewareHandler<SandboxEnv>[]): Hono<SandboxEnv> {
  const root = packageRoot();
  // Served as the sandbox read them (what /docs shows is what the sandbox serves), the servers
  // naming the address the request came to.
  const specs = new Map(SPEC_FILES.map((name) => [name, servedSpec(name, readFileSync(join(root, name), 'utf8'))]));
  const pages = { api: docsPage({ primary: 'api' }), admin: docsPage({ primary: 'admin' }) };
  const docs = new Hono<SandboxEnv>();
  // GET and HEAD only: any other method falls through to the API, which answers it (404).
  docs.on(['GET', 'HEAD'], ['/docs/*', ...SPEC_FILES.map((name) => `/${name}`)], ...before);

  const html = (page: string) => (c: Context<SandboxEnv>) => c.html(page, 200, { 'cache-control': 'no-cache' });
  docs.get('/docs', html(pages.api));
  docs.get('/docs/', html(pages.api));
  docs.get('/docs/admin', html(pages.admin));

  docs.get('/docs/assets/:name', function serveDocsAsset(c) {
    const asset = swaggerAsset(c.req.param('name'));
    if (!asset) throw ApiError.notFound(`There is no docs asset '${c.req.param('name').slice(0, 80)}'; the page is at /docs.`);
    return c.body(new Uint8Array(asset.body), 200, { 'content-type': asset.contentType, 'cache-control': 'public, max-age=3600' });
  });

  for (const [name, spec] of specs) {
    docs.get(`/${name}`, (c) =>
      c.body(spec.textFor(new URL(c.req.url).origin), 200, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-cache' }),
    );
  }
  return docs;
}
