// Reads an OpenAPI document from the package folder (or a given path) once, at boot.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { OpenAPIV3_1 } from 'openapi-types';

/** The folder holding package.json, found by walking up from this module (works from src/ and dist/src/). */
export function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'openapi.json'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new Error('payments-sandbox: cannot find the package folder holding openapi.json');
    dir = parent;
  }
}

/** The version in the package's package.json (what --version and /_sandbox/health say). */
export function packageVersion(): string {
  return (JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version: string }).version;
}

/**
 * Whether this is the built package (dist/src, or the dist/bundle the CLI runs) rather than the
 * sources the tests run from: only built code may use what the build wrote beside it (the seed and
 * scenario caches), which older sources than the tests' could otherwise have made.
 */
export const RUNNING_BUILT = dirname(fileURLToPath(import.meta.url))
  .split(/[\\/]/)
  .includes('dist');

export function loadSpec(file = join(packageRoot(), 'openapi.json')): OpenAPIV3_1.Document {
  const path = resolve(file);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new Error(`cannot read the OpenAPI document ${path}: ${(err as Error).message}`);
  }
  try {
    return JSON.parse(text) as OpenAPIV3_1.Document;
  } catch (err) {
    throw new Error(`the OpenAPI document ${path} is not valid JSON: ${(err as Error).message}`);
  }
}
