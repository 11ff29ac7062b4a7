// The checks a data file passes before it loads, in the words of a snapshot import: its top-level
// shape, collection names, arrays of records, each record's schema (a checker the composition root
// gives: the schemas live in the admin layer, above the store), ids unique per collection.
import { COLLECTION_NAMES, type CollectionName, type StoreData } from './records.js';

/**
 * What is wrong with one stored record of `collection`, as a snapshot import would say (its
 * schema in openapi.admin.json): empty when nothing is. Given by the composition root, since the
 * schemas live in a layer above the store.
 */
export type RecordChecker = (collection: CollectionName, record: unknown) => string[];

/** What is wrong with a whole parsed data file beyond its records (references naming missing records), or null. */
export type DataChecker = (data: StoreData) => string | null;

const TOP_LEVEL_KEYS = new Set(['schema_version', 'seed', 'collections', 'log_seq']);
const NAMES = new Set<string>(COLLECTION_NAMES);

/**
 * The first problem of a parsed data file, in the words of a snapshot import's checks (top-level
 * shape, collection names, arrays of records, each record's schema, ids unique per collection),
 * with how many more records have one; null when it is sound.
 */
export function dataFileProblem(data: StoreData, checkRecord: RecordChecker | null): string | null {
  const unknown = Object.keys(data).find((key) => !TOP_LEVEL_KEYS.has(key));
  if (unknown !== undefined) return `unknown top-level key ${JSON.stringify(unknown)} (a data file holds schema_version, seed, collections and log_seq)`;
  if (!Number.isSafeInteger(data.seed)) return `seed must be an integer, not ${describe(data.seed)}`;
  const logSeq = (data as { log_seq?: unknown }).log_seq;
  if (logSeq !== undefined && !isSeq(logSeq, 0)) return `log_seq must be an integer of 0 or more, not ${describe(logSeq)}`;
  const collections = data.collections as Record<string, unknown>;
  const name = Object.keys(collections).find((key) => !NAMES.has(key));
  if (name !== undefined) return `collections has ${JSON.stringify(name)}, which is not a collection name (${COLLECTION_NAMES.join(', ')})`;
  const problems: string[] = [];
  for (const collection of COLLECTION_NAMES) {
    const records = collections[collection];
    if (records === undefined) continue;
    if (!Array.isArray(records)) return `collections.${collection} must be an array of records, not ${describe(records)}`;
    const seen = new Map<unknown, number>();
    for (const [index, record] of (records as unknown[]).entries()) {
      const where = `${collection}[${index}]`;
      if (!isObject(record)) {
        problems.push(`${where} must be a record (a JSON object), not ${describe(record)}`);
        continue;
      }
      const id = (record as { id?: unknown }).id;
      const named = `${where} (id ${JSON.stringify(id)?.slice(0, 80) ?? 'missing'})`;
      const found = checkRecord ? checkRecord(collection, record) : typeof id === 'string' && id !== '' ? [] : ['id must be a non-empty string'];
      const first = seen.get(id);
      if (found.length) problems.push(`${named}: ${listed(found)}`);
      else if (first !== undefined) problems.push(`${named}: the same id as ${collection}[${first}]; ids are unique in a collection`);
      else seen.set(id, index);
    }
  }
  if (!problems.length) return null;
  const more = problems.length - 1;
  return `${problems[0]}${more ? ` (and ${more} more record${more === 1 ? '' : 's'} with problems)` : ''}`;
}

/** A record's first few problems, as one clause. */
export function listed(problems: string[]): string {
  const shown = problems.slice(0, 3).map((problem) => problem.replace(/\.$/, ''));
  const more = problems.length - shown.length;
  return `${shown.join('; ')}${more ? `; and ${more} more` : ''}`;
}

export function isSeq(value: unknown, min: number): value is number {
  return Number.isSafeInteger(value) && (value as number) >= min;
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describe(value: unknown): string {
  if (value === undefined) return 'missing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `${typeof value} ${JSON.stringify(value).slice(0, 40)}`;
}
