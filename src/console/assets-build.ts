// Build step (`npm run bundle` runs `node dist/src/console/assets-build.js` after esbuild): copies
// the console's own files into dist/bundle/console, the shipped folder assets.ts serves from. The
// stylesheet comes from src/console/assets, the browser script's modules from what tsc built of
// src/console/client; neither src/ nor dist/src/**/*.js is in the package.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { packageRoot } from '../spec/load-spec.js';
import { CLIENT_MODULES, SHIPPED_ASSETS_FOLDER } from './assets.js';

function copyConsoleAssets(): void {
  const root = packageRoot();
  const target = join(root, SHIPPED_ASSETS_FOLDER);
  mkdirSync(target, { recursive: true });
  writeFileSync(join(target, 'console.css'), readFileSync(join(root, 'src/console/assets/console.css')));
  for (const name of CLIENT_MODULES) {
    const text = readFileSync(join(root, 'dist/src/console/client', `${name}.js`), 'utf8');
    // No source maps are shipped: drop the pointer so browser tools do not ask for one.
    writeFileSync(join(target, `${name}.js`), text.replace(/\n?\/\/# sourceMappingURL=\S+\s*$/, '\n'));
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) copyConsoleAssets();
