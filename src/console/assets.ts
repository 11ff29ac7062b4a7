// The console's files, all from the package (it works with no network): htmx from node_modules
// (as /docs serves swagger-ui-dist), the stylesheet from src/console/assets, and the browser script
// as tsc built it from src/console/client (dist/src/console/client). Only these names are served;
// each is read once, on first use.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { packageRoot } from '../spec/load-spec.js';

export interface ConsoleAsset {
  body: Buffer;
  contentType: string;
}

const JS = 'text/javascript; charset=utf-8';

/** The browser script's modules (src/console/client/*.ts): console.js and what it imports. */
const CLIENT_MODULES = ['console', 'api', 'focus', 'requests', 'records', 'scenarios', 'scenario-definition', 'webhooks'];

/** Where each served name comes from. */
const SOURCES: Record<string, { path: () => string; contentType: string }> = {
  'htmx.min.js': { path: () => createRequire(import.meta.url).resolve('htmx.org/dist/htmx.min.js'), contentType: JS },
  'console.css': { path: () => join(packageRoot(), 'src/console/assets/console.css'), contentType: 'text/css; charset=utf-8' },
  ...Object.fromEntries(CLIENT_MODULES.map((name) => [`${name}.js`, { path: () => clientFile(`${name}.js`), contentType: JS }])),
};

/** The browser script as built: `npm run build` (or `npm install`) makes it. */
function clientFile(name: string): string {
  return join(packageRoot(), 'dist/src/console/client', name);
}

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
    // No source maps are served: drop the pointer so browser tools do not ask for one.
    body = Buffer.from(body.toString('utf8').replace(/\n?\/\/# sourceMappingURL=\S+\s*$/, '\n'));
    asset = { body, contentType: source.contentType };
    cache.set(name, asset);
  }
  return asset;
}

/** The names served (tests check each). */
export const CONSOLE_ASSET_NAMES = Object.keys(SOURCES);
