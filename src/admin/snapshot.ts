// GET/PUT /_sandbox/snapshot: the namespace's records as stored (StoreData), out and back in; and
// GET/PUT /_sandbox/state: the whole namespace (records, clock, journal, scenario state, schedules).
// An import is checked record by record against the collection schemas, so a snapshot cannot plant
// a record the API would then serve in a broken shape.
import { ApiError, type ErrorDetail } from '../errors/api-error.js';
import { catchUpReports } from '../resources/reports/scheduler.js';
import { summarize } from '../spec/operations.js';
import { COLLECTION_NAMES, type CollectionName, type StoreData } from '../store/records.js';
import { recordProblems } from './record-shapes.js';
import type { AdminDeps, AdminHandlerMap } from './types.js';

const MAX_DETAILS = 50;

export const snapshotHandlers: AdminHandlerMap = {
  getSnapshot({ ns }) {
    // Time-driven report state first, as any API read of reports would: the export is the state now.
    catchUpReports(ns);
    return { body: ns.store.data };
  },

  putSnapshot({ deps, ns, body }) {
    const data = checkedSnapshot(deps, body, '', ns.store.seed);
    ns.replaceRecords(data); // parts that follow records (the webhook queue) rebuild
    return { body: { namespace: ns.name, record_counts: recordCounts(data) } };
  },

  getNamespaceState({ ns }) {
    catchUpReports(ns);
    return { body: ns.exportState() };
  },

  putNamespaceState({ deps, ns, body }) {
    const records = checkedSnapshot(deps, body.records, '/records', ns.store.seed);
    try {
      ns.importState({ records, clock: body.clock, parts: body.parts });
    } catch (err) {
      const [where, ...rest] = (err as Error).message.split(': ');
      const pointer = `/${where.replace('.', '/')}`;
      throw ApiError.badRequest(`The namespace state cannot be imported: ${(err as Error).message}.`, [
        { location: 'body', pointer, type: 'value_error', message: rest.join(': ') || (err as Error).message },
      ]);
    }
    return { body: { namespace: ns.name, record_counts: recordCounts(records) } };
  },
};

/** A snapshot checked record by record against the collection schemas (400 naming each problem), as a fresh copy. */
function checkedSnapshot(deps: AdminDeps, body: unknown, at: string, seed: number): StoreData {
  const input = body as { seed?: number; collections: Partial<Record<CollectionName, Array<Record<string, unknown>>>> };
  const problems: ErrorDetail[] = [];
  for (const name of COLLECTION_NAMES) {
    const seen = new Set<unknown>();
    for (const [index, record] of (input.collections[name] ?? []).entries()) {
      const pointer = `${at}/collections/${name}/${index}`;
      problems.push(...recordProblems(deps.recordSchemas, name, record, pointer));
      if (seen.has(record.id))
        problems.push({
          location: 'body',
          pointer: `${pointer}/id`,
          type: 'duplicate_id',
          message: `Id ${String(record.id).slice(0, 100)} appears twice in ${name}.`,
        });
      seen.add(record.id);
    }
  }
  if (problems.length) throw ApiError.badRequest(summarize(problems), problems.slice(0, MAX_DETAILS));
  return {
    schema_version: 1,
    seed: input.seed ?? seed,
    collections: Object.fromEntries(
      COLLECTION_NAMES.map((name) => [name, structuredClone(input.collections[name] ?? [])]),
    ) as unknown as StoreData['collections'],
  };
}

export function recordCounts(data: StoreData): Record<string, number> {
  return Object.fromEntries(COLLECTION_NAMES.map((name) => [name, data.collections[name]?.length ?? 0]));
}
