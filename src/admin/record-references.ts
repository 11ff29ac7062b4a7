// Which fields of a record name other records, and the checks that keep them pointing at records
// that exist: on create and update (checkReferences), on delete (checkNotReferenced), and over a whole
// state, for an import and for a data file at start (danglingReferences). A record naming nothing
// would be served in a shape the contract does not allow (a gift card's buyer as null).
import { ApiError } from '../errors/api-error.js';
import { COLLECTION_NAMES, type CollectionName, type StoreData } from '../store/records.js';
import type { CollectionMap } from '../store/store.js';
import { RECORD_SHAPES } from './record-shapes.js';

type AnyRecord = Record<string, any> & { id: string };

/** The reference fields of a collection's records, with the collection each names: merchant_account_id first where records belong to one. */
export function referenceFields(collection: CollectionName): Array<[field: string, target: CollectionName]> {
  const shape = RECORD_SHAPES[collection];
  return [...(shape.merchantScoped ? [['merchant_account_id', 'merchant_accounts'] as [string, CollectionName]] : []), ...(shape.references ?? [])];
}

/** 422 when a reference field names a record that does not exist in this namespace. */
export function checkReferences(db: CollectionMap, collection: CollectionName, record: AnyRecord): void {
  const items = [];
  for (const [field, target] of referenceFields(collection)) {
    const value = record[field];
    const ids: Array<[unknown, string[]]> = Array.isArray(value) ? value.map((v, i) => [v, ['body', field, String(i)]]) : [[value, ['body', field]]];
    for (const [id, loc] of ids) {
      if (id === null || id === undefined) continue;
      if (typeof id === 'string' && db[target].get(id)) continue;
      items.push({
        loc,
        msg: `${field} names ${target} record '${String(id).slice(0, 100)}', which does not exist in this namespace.`,
        type: 'value_error',
        input: id,
        ctx: { collection: target },
      });
    }
  }
  if (items.length) throw ApiError.unprocessable(items);
}

/**
 * 422 when records still name `id` of `collection` in a reference field: removing it would leave
 * them pointing at nothing, and the API would then answer with shapes its contract does not allow
 * (a gift card's buyer as null). One item per referring collection and field, with how many and
 * the first few ids, so the caller knows what to delete or re-point first.
 */
export function checkNotReferenced(db: CollectionMap, collection: CollectionName, id: string): void {
  const items = [];
  for (const referring of Object.keys(RECORD_SHAPES) as CollectionName[]) {
    for (const [field, target] of referenceFields(referring)) {
      if (target !== collection) continue;
      const names = (r: AnyRecord) => (Array.isArray(r[field]) ? r[field].includes(id) : r[field] === id);
      const ids = (db[referring].all() as readonly AnyRecord[]).filter(names).map((r) => r.id as string);
      if (!ids.length) continue;
      const shown = ids.slice(0, 3).join(', ') + (ids.length > 3 ? `, and ${ids.length - 3} more` : '');
      items.push({
        loc: ['path', 'record_id'],
        msg: `${ids.length} ${referring} record${ids.length === 1 ? '' : 's'} still name${ids.length === 1 ? 's' : ''} this record in ${field} (${shown}): delete ${ids.length === 1 ? 'it' : 'them'}, or point ${field} at another record, first.`,
        type: 'value_error',
        input: id,
        ctx: { collection: referring, field, count: ids.length },
      });
    }
  }
  if (items.length) throw ApiError.unprocessable(items);
}

/** A reference naming a record the state does not hold. */
export interface DanglingReference {
  collection: CollectionName;
  index: number;
  id: unknown;
  /** The field, and the item's index in an array field. */
  path: string[];
  target: CollectionName;
  value: unknown;
}

/** Every reference in `data` naming a record it does not hold, in collection and record order. */
export function danglingReferences(data: StoreData): DanglingReference[] {
  const collections = data.collections as Partial<Record<CollectionName, AnyRecord[]>>;
  const ids = new Map<CollectionName, Set<unknown>>();
  const idsOf = (name: CollectionName) => {
    let set = ids.get(name);
    if (!set) ids.set(name, (set = new Set((collections[name] ?? []).map((r) => r?.id))));
    return set;
  };
  const found: DanglingReference[] = [];
  for (const collection of COLLECTION_NAMES) {
    const fields = referenceFields(collection);
    if (!fields.length) continue;
    (collections[collection] ?? []).forEach((record, index) => {
      for (const [field, target] of fields) {
        const value = record[field];
        const items: Array<[unknown, string[]]> = Array.isArray(value) ? value.map((v, i) => [v, [field, String(i)]]) : [[value, [field]]];
        for (const [item, path] of items) {
          if (item === null || item === undefined || (typeof item === 'string' && idsOf(target).has(item))) continue;
          found.push({ collection, index, id: record.id, path, target, value: item });
        }
      }
    });
  }
  return found;
}

/** One dangling reference as a sentence naming the record and the field. */
export function danglingReferenceText({ collection, index, id, path, target, value }: DanglingReference): string {
  return `${collection}[${index}] (id ${JSON.stringify(id)?.slice(0, 80)}): ${path.join('.')} names ${target} record ${JSON.stringify(value)?.slice(0, 100)}, which is not there`;
}
