// GET/PUT /_sandbox/snapshot: the namespace's records as stored (StoreData), out and back in; and
// GET/PUT /_sandbox/state: the whole namespace (records, clock, journal, scenario state, schedules).
// An import is checked record by record against the collection schemas, so a snapshot cannot plant
// a record the API would then serve in a broken shape.
import { ApiError, type ErrorDetail } from '../errors/api-error.js';
import { DefinitionError } from '../scenarios/definitions.js';
import { SCENARIO_STATE } from '../scenarios/state.js';
import { summarize } from '../spec/operations.js';
import type { SchemaCompiler } from '../spec/schema-compiler.js';
import type { DataChecker, RecordChecker } from '../store/data-file-checks.js';
import { COLLECTION_NAMES, type CollectionName, type StoreData } from '../store/records.js';
import { danglingReferences, danglingReferenceText } from './record-references.js';
import { recordProblems } from './record-shapes.js';
import type { AdminDeps, AdminHandlerMap } from './types.js';

const MAX_DETAILS = 50;

export const snapshotHandlers: AdminHandlerMap = {
  getSnapshot({ ns }) {
    // What follows the clock first (reports, planned approvals), as an API read would: the export is the state now.
    ns.catchUpTimedChanges();
    const defined = ns.part(SCENARIO_STATE).definedScenarios();
    // The scenarios defined at run time travel with the records (only when there are any).
    return { body: defined.length ? { ...ns.store.data, scenarios: defined.map((s) => s.definition) } : ns.store.data };
  },

  putSnapshot({ deps, ns, body }) {
    const data = checkedSnapshot(deps, body, '', ns.store.seed);
    const defineScenarios = body.scenarios === undefined ? null : checkedDefinitions(ns.part(SCENARIO_STATE), body.scenarios);
    ns.replaceRecords(data); // parts that follow records (the webhook queue) rebuild
    defineScenarios?.();
    return { body: { namespace: ns.name, record_counts: recordCounts(data) } };
  },

  getNamespaceState({ ns }) {
    ns.catchUpTimedChanges();
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

/** A snapshot's scenarios checked like definitions sent one by one (400 pointing into /scenarios). */
function checkedDefinitions(state: { prepareDefinitions(list: readonly unknown[]): () => void }, list: unknown[]): () => void {
  try {
    return state.prepareDefinitions(list);
  } catch (err) {
    if (!(err instanceof DefinitionError)) throw err;
    const problems: ErrorDetail[] = err.problems.map((p) => ({
      location: 'body',
      pointer: `/scenarios${p.pointer}`,
      type: 'scenario_invalid',
      message: p.message,
    }));
    throw ApiError.badRequest(summarize(problems), problems.slice(0, MAX_DETAILS));
  }
}

/** A snapshot checked record by record against the collection schemas (400 naming each problem), as a fresh copy. */
function checkedSnapshot(deps: AdminDeps, body: unknown, at: string, seed: number): StoreData {
  const input = body as { seed?: number; collections: Partial<Record<CollectionName, Array<Record<string, unknown>>>> };
  const problems: ErrorDetail[] = [];
  for (const name of COLLECTION_NAMES) {
    const seen = new Set<unknown>();
    for (const [index, record] of (input.collections[name] ?? []).entries()) {
      const pointer = `${at}/collections/${name}/${index}`;
      problems.push(...recordProblems(deps.adminSpec.compiler, name, record, pointer, false, deps.webhooks.targets));
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
    seed: input.seed ?? seed,
    collections: Object.fromEntries(
      COLLECTION_NAMES.map((name) => [name, structuredClone(input.collections[name] ?? [])]),
    ) as unknown as StoreData['collections'],
  };
  // A record naming one the import does not hold would be served broken (a gift card's buyer as null): 422, as the records API.
  const dangling = danglingReferences(data);
  if (dangling.length) {
    const where = at.split('/').filter(Boolean);
    throw ApiError.unprocessable(
      dangling.slice(0, MAX_DETAILS).map((d) => ({
        loc: ['body', ...where, 'collections', d.collection, String(d.index), ...d.path],
        msg: `${danglingReferenceText(d)} in this import.`,
        type: 'value_error',
        input: d.value,
        ctx: { collection: d.target },
      })),
    );
  }
  return data;
}

/**
 * The record checks of an import, for the data file loaded at start (the store cannot import the
 * schemas): each problem as a sentence about the record, not about a request body.
 */
export function dataFileRecordCheck(compiler: SchemaCompiler): RecordChecker {
  // Schema only: a record the sandbox once accepted (a subscription URL it cannot send to) must not stop it from starting.
  return (collection, record) =>
    recordProblems(compiler, collection, record, '', true).map((d) => d.message.replace(/^Body field '/, "field '").replace(/^The body /, 'the record '));
}

/** The reference checks of an import, for the data file loaded at start (after its change log is replayed). */
export const dataFileReferenceCheck: DataChecker = (data) => {
  const dangling = danglingReferences(data);
  if (!dangling.length) return null;
  const more = dangling.length - 1;
  return `${danglingReferenceText(dangling[0])}${more ? ` (and ${more} more reference${more === 1 ? '' : 's'} naming missing records)` : ''}`;
};

export function recordCounts(data: StoreData): Record<string, number> {
  return Object.fromEntries(COLLECTION_NAMES.map((name) => [name, data.collections[name]?.length ?? 0]));
}
