// The Swagger UI files the docs page needs, served by the sandbox itself from swagger-ui-dist so
// the page works with no network. Only these names are served; each is read once, on first use.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const CONTENT_TYPES: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'swagger-ui-standalone-preset.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
  'favicon-16x16.png': 'image/png',
};

export interface Asset {
  body: Buffer;
  contentType: string;
}

let distDir: string | undefined;
const cache = new Map<string, Asset>();

function swaggerUiDir(): string {
  distDir ??= dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  return distDir;
}

/** The asset of that name, or null when it is not one the page uses. */
export function swaggerAsset(name: string): Asset | null {
  const contentType = CONTENT_TYPES[name];
  if (!contentType) return null;
  let asset = cache.get(name);
  if (!asset) {
    // Source maps are not shipped to the browser: strip the pointer so devtools do not ask for one.
    let body = readFileSync(join(swaggerUiDir(), name));
    if (name.endsWith('.js') || name.endsWith('.css')) body = Buffer.from(body.toString('utf8').replace(/\n?\/[*/]# sourceMappingURL=\S+(?: \*\/)?\s*$/, '\n'));
    asset = { body, contentType };
    cache.set(name, asset);
  }
  return asset;
}
