// GET/POST /_sandbox/records/{collection} and GET/PATCH/DELETE /_sandbox/records/{collection}/{id}:
// set up and inspect any stored record of the request's namespace. Input is the stored shape, checked
// against its schema in openapi.admin.json like API input; output is the API shape by default.
import { randomUUID } from 'node:crypto';
import { ApiError } from '../errors/api-error.js';
import { summarize } from '../spec/operations.js';
import type { CollectionName } from '../store/records.js';
import type { CollectionMap } from '../store/store.js';
import { WEBHOOKS } from '../webhooks/hub.js';
import { parseOrder, sortRecords } from './record-order.js';
import { checkNotReferenced, checkReferences } from './record-references.js';
import { canonicalizeRecordUuids, RECORD_SHAPES, recordProblems, toApiShape } from './record-shapes.js';
import type { AdminContext, AdminHandlerMap } from './types.js';

type AnyRecord = Record<string, any> & { id: string };

export const recordHandlers: AdminHandlerMap = {
  listRecords(ctx) {
    const { collection, db } = target(ctx);
    const { merchant_account_id: merchantAccountId, limit, offset } = ctx.query;
    const order = parseOrder(ctx.query.order, collection, ctx.deps.adminSpec, ctx.deps.apiSpec);
    let rows = db[collection].all() as readonly AnyRecord[];
    if (merchantAccountId !== undefined) rows = rows.filter(merchantFilter(collection, merchantAccountId));
    if (order) rows = sortRecords(rows, order);
    return {
      body: { items: rows.slice(offset, offset + limit).map((r) => present(ctx, collection, r)), total: rows.length, limit, offset },
    };
  },

  async createRecord(ctx) {
    const { collection, db } = writable(ctx);
    const shape = RECORD_SHAPES[collection];
    const now = ctx.ns.clock.nowIso();
    const record = {
      ...(shape.merchantScoped ? { merchant_account_id: 'default' } : {}),
      ...shape.defaults?.(),
      ...objectBody(ctx.body),
    } as AnyRecord;
    record.type ??= shape.type;
    record.id ??= randomUUID();
    if (shape.timestamps !== false) {
      record.created_at ??= now;
      record.updated_at ??= record.created_at;
    }
    await checkRecord(ctx, collection, record, null);
    if (typeof record.id === 'string' && db[collection].get(record.id)) {
      throw ApiError.duplicate(`A ${collection} record with id ${record.id} exists; PATCH it or pick another id.`, record.id);
    }
    db[collection].insert(record as never);
    subscriptionsChanged(ctx, collection);
    return { status: 201, body: present(ctx, collection, record) };
  },

  getRecord(ctx) {
    const { collection } = target(ctx);
    return { body: present(ctx, collection, existing(ctx)) };
  },

  async updateRecord(ctx) {
    const { collection, db } = writable(ctx);
    const current = existing(ctx);
    const patch = objectBody(ctx.body);
    if ('id' in patch && patch.id !== current.id) {
      throw ApiError.badRequest('A record id cannot change: create a new record instead.', [
        { location: 'body', pointer: '/id', type: 'frozen_field', message: `Body field 'id' must be ${current.id} or left out.` },
      ]);
    }
    const merged: AnyRecord = { ...structuredClone(current), ...patch };
    if (RECORD_SHAPES[collection].timestamps !== false) merged.updated_at = patch.updated_at ?? ctx.ns.clock.nowIso();
    await checkRecord(ctx, collection, merged, current.id);
    db[collection].replace(merged as never);
    subscriptionsChanged(ctx, collection);
    return { body: present(ctx, collection, merged) };
  },

  deleteRecord(ctx) {
    const { collection, db } = target(ctx);
    const { id } = existing(ctx);
    checkNotReferenced(db, collection, id);
    db[collection].remove(id);
    subscriptionsChanged(ctx, collection);
    return { status: 204 };
  },
};

function target(ctx: AdminContext): { collection: CollectionName; db: CollectionMap } {
  // What follows the clock by itself (report schedules and statuses, planned approvals) is caught up on every read, as in the API.
  if (ctx.ns.timedChangesMovedBy(ctx.params.collection as CollectionName)) ctx.ns.catchUpTimedChanges();
  return { collection: ctx.params.collection as CollectionName, db: ctx.ns.store.collections };
}

/** A subscription deleted or made inactive stops receiving at once, pending retries included. */
function subscriptionsChanged(ctx: AdminContext, collection: CollectionName): void {
  if (collection === 'webhook_subscriptions') ctx.ns.part(WEBHOOKS).refresh();
}

/** The target of a create or change: 400 for collections only the sandbox writes. */
function writable(ctx: AdminContext): { collection: CollectionName; db: CollectionMap } {
  const found = target(ctx);
  const readOnly = RECORD_SHAPES[found.collection].readOnly;
  if (readOnly) {
    throw ApiError.badRequest(`${found.collection} records cannot be created or changed through the records API: ${readOnly}.`, [
      { location: 'path', pointer: '/collection', type: 'read_only_collection', message: `${found.collection} is read-only here (list, read or delete).` },
    ]);
  }
  return found;
}

function existing(ctx: AdminContext): AnyRecord {
  const { collection, db } = target(ctx);
  const record = db[collection].get(ctx.params.record_id) as AnyRecord | undefined;
  if (!record) throw ApiError.notFound(`No ${collection} record has id ${ctx.params.record_id.slice(0, 200)} in namespace ${ctx.ns.name}.`);
  return record;
}

function present(ctx: AdminContext, collection: CollectionName, record: AnyRecord): unknown {
  return ctx.query.shape === 'stored' ? record : toApiShape(ctx.ns.store.collections, collection, record, ctx.sandboxBase);
}

function objectBody(body: unknown): Record<string, any> {
  if (!body || typeof body !== 'object' || Array.isArray(body)) {
    throw ApiError.badRequest('The body must be a JSON object: a record in the stored shape of the collection.', [
      { location: 'body', pointer: '', type: 'dict_type', message: 'Send a JSON object.' },
    ]);
  }
  return body as Record<string, any>;
}

/** Derived fields, then the schema (400), then references (422), then unique keys (409). */
async function checkRecord(ctx: AdminContext, collection: CollectionName, record: AnyRecord, selfId: string | null): Promise<void> {
  const shape = RECORD_SHAPES[collection];
  await shape.derive?.(record);
  const problems = recordProblems(ctx.deps.adminSpec.compiler, collection, record, '', false, ctx.deps.webhooks.targets);
  if (problems.length) throw ApiError.badRequest(summarize(problems), problems);
  canonicalizeRecordUuids(ctx.deps.adminSpec, collection, record);
  const db = ctx.ns.store.collections;
  checkReferences(db, collection, record);
  if (collection === 'api_key_pairs') {
    const twin = db.api_key_pairs.find((p) => p.thumbprint === record.thumbprint && p.id !== selfId);
    if (twin) throw ApiError.duplicate(`An API key pair with this public key exists: ${twin.id}.`, twin.id);
  }
}

function merchantFilter(collection: CollectionName, merchantAccountId: string): (r: AnyRecord) => boolean {
  if (collection === 'api_key_pairs') return (r) => r.merchant_account_ids.length === 0 || r.merchant_account_ids.includes(merchantAccountId);
  if (RECORD_SHAPES[collection].merchantScoped) return (r) => r.merchant_account_id === merchantAccountId;
  throw ApiError.badRequest(`${collection} records belong to no merchant account: leave out merchant_account_id.`, [
    {
      location: 'query',
      pointer: '/merchant_account_id',
      type: 'extra_forbidden',
      message: `Query parameter 'merchant_account_id' does not apply to ${collection}.`,
    },
  ]);
}
