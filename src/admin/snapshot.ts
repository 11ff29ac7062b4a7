// GET/PUT /_sandbox/snapshot: the namespace's whole state as stored (StoreData), out and back in.
// An import is checked record by record against the collection schemas, so a snapshot cannot plant
// a record the API would then serve in a broken shape.
import { ApiError, type ErrorDetail } from '../http/api-error.js';
import { catchUpReports } from '../resources/reports/scheduler.js';
import { summarize } from '../spec/operations.js';
import type { SchemaCompiler } from '../spec/schema-compiler.js';
import type { RecordChecker } from '../store/data-file-checks.js';
import { COLLECTION_NAMES, type CollectionName, type StoreData } from '../store/records.js';
import { recordProblems } from './record-shapes.js';
import type { AdminHandlerMap } from './types.js';

const MAX_DETAILS = 50;

export const snapshotHandlers: AdminHandlerMap = {
  getSnapshot({ ns }) {
    // Time-driven report state first, as any API read of reports would: the export is the state now.
    catchUpReports(ns);
    return { body: ns.store.data };
  },

  putSnapshot({ deps, ns, body }) {
    const input = body as { seed?: number; collections: Partial<Record<CollectionName, Array<Record<string, unknown>>>> };
    const problems: ErrorDetail[] = [];
    for (const name of COLLECTION_NAMES) {
      const seen = new Set<unknown>();
      for (const [index, record] of (input.collections[name] ?? []).entries()) {
        const pointer = `/collections/${name}/${index}`;
        problems.push(...recordProblems(deps.admin.spec.compiler, name, record, pointer));
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
    const data: StoreData = {
      schema_version: 1,
      seed: input.seed ?? ns.store.seed,
      collections: Object.fromEntries(
        COLLECTION_NAMES.map((name) => [name, structuredClone(input.collections[name] ?? [])]),
      ) as unknown as StoreData['collections'],
    };
    ns.store.replaceAll(data);
    return { body: { namespace: ns.name, record_counts: recordCounts(data) } };
  },
};

/**
 * The record checks of an import, for the data file loaded at start (the store cannot import the
 * schemas): each problem as a sentence about the record, not about a request body.
 */
export function dataFileRecordCheck(compiler: SchemaCompiler): RecordChecker {
  return (collection, record) =>
    recordProblems(compiler, collection, record).map((d) => d.message.replace(/^Body field '/, "field '").replace(/^The body /, 'the record '));
}

export function recordCounts(data: StoreData): Record<string, number> {
  return Object.fromEntries(COLLECTION_NAMES.map((name) => [name, data.collections[name]?.length ?? 0]));
}
