// Record mode's data file: the records seen in the upstream's answers (upstream/seen-records.ts),
// each turned from its API shape into its stored shape, over the default namespace's records (so the
// sandbox it starts still has its merchant accounts and key pairs). A field the stored shape names
// `<x>_id` is taken from the expanded `<x>` the API showed; references stay as the upstream gave
// them. A record that fails the checks of a snapshot import, or names a record the file does not
// hold, is left out (and every record naming it, in turn), each with the reason, so that the file
// always loads (`--data-file`).
import type { SpecIndex } from '../spec/operations.js';
import { COLLECTION_NAMES, type CollectionName, type StoreData } from '../store/records.js';
import { danglingReferences, danglingReferenceText } from './record-references.js';
import { RECORD_SHAPES, recordProblems } from './record-shapes.js';

type AnyRecord = Record<string, unknown> & { id: string };

export interface RecordedDataFile {
  data: StoreData & { left_out?: never };
  /** Records seen but not in the file, with why. */
  leftOut: Array<{ type: string; id: string; reason: string }>;
}

const COLLECTION_OF_TYPE = new Map<string, CollectionName>(COLLECTION_NAMES.map((name) => [RECORD_SHAPES[name].type, name]));

export function recordedDataFile(adminSpec: SpecIndex, base: StoreData, seen: readonly Record<string, unknown>[]): RecordedDataFile {
  const collections = Object.fromEntries(COLLECTION_NAMES.map((name) => [name, [...((base.collections[name] ?? []) as unknown as AnyRecord[])]])) as Record<
    CollectionName,
    AnyRecord[]
  >;
  const leftOut: RecordedDataFile['leftOut'] = [];
  for (const apiRecord of seen) {
    const type = String(apiRecord.type);
    const collection = COLLECTION_OF_TYPE.get(type);
    if (!collection) {
      leftOut.push({ type, id: String(apiRecord.id), reason: `no collection keeps records of type ${type}` });
      continue;
    }
    const stored = storedShape(adminSpec, collection, apiRecord);
    const problems = recordProblems(adminSpec.compiler, collection, stored, '', true);
    if (problems.length) {
      leftOut.push({ type, id: stored.id, reason: problems.map((p) => p.message).join('; ') });
      continue;
    }
    const list = collections[collection];
    const at = list.findIndex((r) => r.id === stored.id);
    if (at >= 0) list[at] = stored;
    else list.push(stored);
  }
  const data = { schema_version: 1, seed: base.seed, collections } as unknown as StoreData;
  // A record naming one the file does not hold would stop the start: left out, until none does.
  for (let dangling = danglingReferences(data); dangling.length; dangling = danglingReferences(data)) {
    for (const d of dangling) {
      const list = collections[d.collection];
      const index = list.findIndex((r) => r.id === d.id);
      if (index < 0) continue;
      list.splice(index, 1);
      leftOut.push({ type: RECORD_SHAPES[d.collection].type, id: String(d.id), reason: danglingReferenceText(d) });
    }
  }
  return { data, leftOut };
}

/** The record's fields its stored schema declares; `<x>_id` and `<x>_ids` from an expanded `<x>` / `<x>s`; the collection's defaults for the rest. */
function storedShape(adminSpec: SpecIndex, collection: CollectionName, apiRecord: Record<string, unknown>): AnyRecord {
  const shape = RECORD_SHAPES[collection];
  const fields = declaredFields(adminSpec, { $ref: `#/components/schemas/${shape.schema}` }, 'openapi.admin.json');
  const stored: Record<string, unknown> = { ...(shape.defaults?.() ?? {}) };
  for (const field of fields) {
    if (Object.hasOwn(apiRecord, field)) stored[field] = apiRecord[field];
    else if (field.endsWith('_id') && idOf(apiRecord[field.slice(0, -3)]) !== undefined) stored[field] = idOf(apiRecord[field.slice(0, -3)]);
    else if (field.endsWith('_ids') && Array.isArray(apiRecord[`${field.slice(0, -4)}s`])) {
      stored[field] = (apiRecord[`${field.slice(0, -4)}s`] as unknown[]).map(idOf).filter((id) => id !== undefined);
    }
  }
  return stored as AnyRecord;
}

function idOf(value: unknown): string | undefined {
  return value && typeof value === 'object' && typeof (value as { id?: unknown }).id === 'string' ? (value as { id: string }).id : undefined;
}

/** Property names of a schema, through $ref (across both documents) and allOf. */
function declaredFields(spec: SpecIndex, schema: unknown, base: string, depth = 0): Set<string> {
  const fields = new Set<string>();
  if (!schema || typeof schema !== 'object' || depth > 10) return fields;
  const s = schema as Record<string, unknown>;
  if (typeof s.$ref === 'string') {
    const target = spec.resolve(s.$ref, base);
    for (const f of declaredFields(spec, target.schema, target.base, depth + 1)) fields.add(f);
  }
  for (const name of Object.keys((s.properties as object | undefined) ?? {})) fields.add(name);
  for (const part of (s.allOf as unknown[] | undefined) ?? []) for (const f of declaredFields(spec, part, base, depth + 1)) fields.add(f);
  return fields;
}
