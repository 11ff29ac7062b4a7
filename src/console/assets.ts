// The console's files, all from the package (it works with no network): htmx from node_modules
// (as /docs serves swagger-ui-dist), and our own files (the stylesheet, the browser script tsc
// built from src/console/client) from dist/bundle/console, where the build copies them
// (assets-build.ts): dist/bundle/ is what the package ships, so a tarball or git install serves
// every file. Only these names are served; each is read once, on first use.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { packageRoot } from '../spec/load-spec.js';

export interface ConsoleAsset {
  body: Buffer;
  contentType: string;
}

const JS = 'text/javascript; charset=utf-8';
const CSS = 'text/css; charset=utf-8';

/** The browser script's modules (src/console/client/*.ts): console.js and what it imports. */
export const CLIENT_MODULES = ['console', 'api', 'focus', 'requests', 'records', 'scenarios', 'scenario-definition', 'webhooks', 'stack'];

/** Our own files, as the build leaves them in the shipped folder (relative to the package). */
export const SHIPPED_ASSETS_FOLDER = 'dist/bundle/console';
const shipped = (name: string) => () => join(packageRoot(), SHIPPED_ASSETS_FOLDER, name);

/** Where each served name comes from. */
const SOURCES: Record<string, { path: () => string; contentType: string }> = {
  'htmx.min.js': { path: () => createRequire(import.meta.url).resolve('htmx.org/dist/htmx.min.js'), contentType: JS },
  'console.css': { path: shipped('console.css'), contentType: CSS },
  ...Object.fromEntries(CLIENT_MODULES.map((name) => [`${name}.js`, { path: shipped(`${name}.js`), contentType: JS }])),
};

const cache = new Map<string, ConsoleAsset>();

/** The asset of that name, or null when the console has none by that name. */
export function consoleAsset(name: string): ConsoleAsset | null {
  const source = Object.hasOwn(SOURCES, name) ? SOURCES[name] : undefined;
  if (!source) return null;
  let asset = cache.get(name);
  if (!asset) {
    let body: Buffer;
    try {
      body = readFileSync(source.path());
    } catch (err) {
      throw new Error(`console asset ${name} is missing (${(err as Error).message}); run npm run build`);
    }
    asset = { body, contentType: source.contentType };
    cache.set(name, asset);
  }
  return asset;
}

/** The names served (tests check each). */
export const CONSOLE_ASSET_NAMES = Object.keys(SOURCES);
