// `order=<field>:<asc|desc>` of GET /_sandbox/records/{collection}: records sorted by a top-level
// field of their stored shape, so "the newest report execution" is one call
// (`?order=created_at:desc&limit=1`). The form is checked by openapi.admin.json's pattern; the
// field must be one the collection's stored schema declares (a typo would otherwise sort nothing).
import { ApiError } from '../errors/api-error.js';
import type { SpecIndex } from '../spec/operations.js';
import type { CollectionName } from '../store/records.js';
import { RECORD_SHAPES } from './record-shapes.js';

type AnyRecord = Record<string, any> & { id: string };

export interface RecordOrder {
  field: string;
  direction: 'asc' | 'desc';
}

/** The order asked for, or null for stored order. `text` has passed the parameter's pattern. */
export function parseOrder(text: string | undefined, collection: CollectionName, admin: SpecIndex, api: SpecIndex): RecordOrder | null {
  if (text === undefined) return null;
  const colon = text.lastIndexOf(':');
  const field = text.slice(0, colon);
  const fields = storedFields(collection, admin, api);
  if (!fields.includes(field)) {
    throw ApiError.badRequest(`Query parameter 'order' names no field of ${collection} records: '${field}'.`, [
      {
        location: 'query',
        pointer: '/order',
        type: 'value_error',
        message: `Query parameter 'order' must name a field of ${collection} records (${fields.join(', ')}), then :asc or :desc.`,
      },
    ]);
  }
  return { field, direction: text.slice(colon + 1) as 'asc' | 'desc' };
}

/**
 * Sorted by the field: strings by code unit (ISO timestamps in time order), numbers and booleans by
 * value. Records whose field is null, missing, an object or an array come last either way. Equal
 * values keep stored order ascending and reverse it descending, so `desc` is `asc` read backwards.
 */
export function sortRecords(rows: readonly AnyRecord[], { field, direction }: RecordOrder): AnyRecord[] {
  const sign = direction === 'asc' ? 1 : -1;
  const keyed = rows.map((record, index) => ({ record, index, value: scalar(record[field]) }));
  keyed.sort((a, b) => {
    if (a.value === undefined || b.value === undefined) {
      if (a.value !== b.value) return a.value === undefined ? 1 : -1;
    } else {
      const byValue = compareScalars(a.value, b.value);
      if (byValue !== 0) return sign * byValue;
    }
    return sign * (a.index - b.index);
  });
  return keyed.map((k) => k.record);
}

type Scalar = string | number | boolean;

function scalar(value: unknown): Scalar | undefined {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? value : undefined;
}

/** Values of one kind by value; of different kinds (a field stored both ways) booleans, numbers, strings. */
function compareScalars(a: Scalar, b: Scalar): number {
  if (typeof a !== typeof b) return KIND_RANK[typeof a] - KIND_RANK[typeof b];
  return a < b ? -1 : a > b ? 1 : 0;
}

const KIND_RANK: Record<string, number> = { boolean: 0, number: 1, string: 2 };

const fieldsByCollection = new WeakMap<SpecIndex, Map<CollectionName, string[]>>();

/** The top-level properties the collection's stored schema declares (through $ref and allOf/anyOf/oneOf), sorted. */
export function storedFields(collection: CollectionName, admin: SpecIndex, api: SpecIndex): string[] {
  let byCollection = fieldsByCollection.get(admin);
  if (!byCollection) fieldsByCollection.set(admin, (byCollection = new Map()));
  let fields = byCollection.get(collection);
  if (!fields) {
    const found = new Set<string>();
    collectProperties({ $ref: `#/components/schemas/${RECORD_SHAPES[collection].schema}` }, admin.doc, { admin: admin.doc, api: api.doc }, found, 0);
    fields = [...found].sort();
    byCollection.set(collection, fields);
  }
  return fields;
}

interface Docs {
  admin: unknown;
  api: unknown;
}

function collectProperties(schema: any, doc: unknown, docs: Docs, found: Set<string>, depth: number): void {
  if (!schema || typeof schema !== 'object' || depth > 20) return;
  if (schema.properties && typeof schema.properties === 'object') for (const name of Object.keys(schema.properties)) found.add(name);
  for (const key of ['allOf', 'anyOf', 'oneOf'] as const) {
    if (Array.isArray(schema[key])) for (const part of schema[key]) collectProperties(part, doc, docs, found, depth + 1);
  }
  if (typeof schema.$ref === 'string') {
    const [file, pointer = ''] = schema.$ref.split('#');
    const target = file === '' ? doc : file === 'openapi.json' ? docs.api : file === 'openapi.admin.json' ? docs.admin : undefined;
    collectProperties(resolvePointer(target, pointer), target, docs, found, depth + 1);
  }
}

function resolvePointer(doc: unknown, pointer: string): unknown {
  let node: any = doc;
  for (const part of pointer.split('/').slice(1)) {
    node = node?.[part.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  return node;
}
