// Fixture overrides: a folder (config.fixturesDir) of <collection>.json files, each an array of
// records in the stored shape, merged by id over the generated fixtures. A record whose id exists
// is shallow-merged over the generated one (so { "id": ..., "display_name": ... } edits one
// field); a new id is added. Only the minimal shape is checked here (an array of objects with a
// string id); a file that breaks it is an error naming the file.
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { COLLECTION_NAMES, type CollectionName, type StoreData } from './records.js';

export type FixtureOverrides = Partial<Record<CollectionName, Array<Record<string, unknown> & { id: string }>>>;

export class FixtureFileError extends Error {
  constructor(
    readonly file: string,
    problem: string,
  ) {
    super(`fixtures file ${file}: ${problem}`);
  }
}

/** buyers.json and payment-methods.json / payment_methods.json name a collection. */
export function collectionOfFile(file: string): CollectionName | null {
  const name = basename(file, '.json').replace(/-/g, '_');
  return (COLLECTION_NAMES as readonly string[]).includes(name) ? (name as CollectionName) : null;
}

/** Reads every *.json file of the folder; throws FixtureFileError on the first bad one. */
export function loadFixtureOverrides(dir: string): FixtureOverrides {
  let names: string[];
  try {
    names = readdirSync(dir)
      .filter((n) => n.endsWith('.json'))
      .sort();
  } catch (err) {
    throw new Error(`fixtures folder ${dir}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'does not exist' : (err as Error).message}`);
  }
  const overrides: FixtureOverrides = {};
  for (const name of names) {
    const file = join(dir, name);
    const collection = collectionOfFile(file);
    if (!collection) throw new FixtureFileError(file, `'${basename(name, '.json')}' is not a collection (use one of ${COLLECTION_NAMES.join(', ')})`);
    if (overrides[collection]) throw new FixtureFileError(file, `a second file for collection ${collection}`);
    overrides[collection] = parseFixtureFile(file, readFileSync(file, 'utf8'));
  }
  return overrides;
}

export function parseFixtureFile(file: string, text: string): Array<Record<string, unknown> & { id: string }> {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw new FixtureFileError(file, `not valid JSON: ${(err as Error).message}`);
  }
  if (!Array.isArray(data)) throw new FixtureFileError(file, 'must be a JSON array of records');
  const seen = new Set<string>();
  data.forEach((item, i) => {
    if (typeof item !== 'object' || item === null || Array.isArray(item)) throw new FixtureFileError(file, `item ${i} is not an object`);
    const id = (item as { id?: unknown }).id;
    if (typeof id !== 'string' || id === '') throw new FixtureFileError(file, `item ${i} has no string "id"`);
    if (seen.has(id)) throw new FixtureFileError(file, `id '${id}' appears twice`);
    seen.add(id);
  });
  return data as Array<Record<string, unknown> & { id: string }>;
}

/** A copy of `base` with the overrides merged in by id (base is not changed). */
export function applyFixtureOverrides(base: StoreData, overrides: FixtureOverrides): StoreData {
  const merged = structuredClone(base);
  for (const [collection, records] of Object.entries(overrides) as Array<[CollectionName, Array<Record<string, unknown> & { id: string }>]>) {
    const list = merged.collections[collection] as unknown as Array<Record<string, unknown> & { id: string }>;
    const index = new Map(list.map((record, i) => [record.id, i]));
    for (const record of records) {
      const at = index.get(record.id);
      if (at === undefined) {
        index.set(record.id, list.length);
        list.push(structuredClone(record));
      } else {
        list[at] = { ...list[at], ...structuredClone(record) };
      }
    }
  }
  return merged;
}

/**
 * The fixtures namespaces are seeded from: the generated data with the folder's overrides. At
 * boot a bad file throws; reload() keeps the last good version when a file is broken.
 */
export class FixtureSource {
  private current: StoreData;
  /** Grows with every reload: what was made from the fixtures before is from an older version. */
  version = 0;

  constructor(
    private readonly generated: StoreData,
    readonly dir: string | null,
  ) {
    this.current = dir ? applyFixtureOverrides(generated, loadFixtureOverrides(dir)) : generated;
  }

  /** A fresh deep copy, each call. */
  fixtures(): StoreData {
    return structuredClone(this.current);
  }

  /** Re-reads the folder. Throws (keeping the current fixtures) when a file is broken. */
  reload(): void {
    if (!this.dir) return;
    this.current = applyFixtureOverrides(this.generated, loadFixtureOverrides(this.dir));
    this.version++;
  }
}
