// The events the sandbox sends, as openapi.json's `webhooks` section describes them: one entry per
// event name (`<resource type>.<what happened>`), with the collection its target comes from
// (x-sandbox-collection) and the body schema that a delivered notification must match in
// self-check mode. The document is the list: POST /_sandbox/events accepts exactly these names.
import type { ValidateFunction } from 'ajv';
import type { SpecIndex } from '../spec/operations.js';
import { escapePointer, toErrorDetails } from '../spec/schema-compiler.js';
import { COLLECTION_NAMES, type CollectionName } from '../store/records.js';

export interface EventKind {
  name: string;
  /** `buyer` of `buyer.updated`: the target's `type`. */
  resourceType: string;
  collection: CollectionName;
  /** What makes the sandbox send it by itself; null: only on demand (POST /_sandbox/events). */
  emittedBy: string | null;
}

interface WebhookOperation {
  'x-sandbox-collection'?: string;
  'x-sandbox-emitted-by'?: string | null;
}

export class EventCatalog {
  readonly kinds = new Map<string, EventKind>();
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(private readonly spec: SpecIndex) {
    const webhooks = (spec.doc as { webhooks?: Record<string, { post?: WebhookOperation }> }).webhooks ?? {};
    for (const [name, item] of Object.entries(webhooks)) {
      const collection = item.post?.['x-sandbox-collection'];
      if (!collection || !(COLLECTION_NAMES as readonly string[]).includes(collection)) {
        throw new Error(`openapi.json webhooks.${name}: post.x-sandbox-collection must name a collection, got ${JSON.stringify(collection)}`);
      }
      const resourceType = name.slice(0, name.indexOf('.'));
      this.kinds.set(name, { name, resourceType, collection: collection as CollectionName, emittedBy: item.post?.['x-sandbox-emitted-by'] ?? null });
    }
  }

  get(name: string): EventKind | undefined {
    return this.kinds.get(name);
  }

  /** Event names, sorted; of one resource type when given. */
  names(resourceType?: string): string[] {
    return [...this.kinds.values()]
      .filter((k) => resourceType === undefined || k.resourceType === resourceType)
      .map((k) => k.name)
      .sort();
  }

  /** Why `event` does not match its name's body schema in openapi.json (self-check), or null. */
  problemWith(event: { name: string }): string | null {
    if (!this.kinds.has(event.name)) return `event name '${event.name}' is not in openapi.json's webhooks section`;
    let validate = this.validators.get(event.name);
    if (!validate) {
      const pointer = `#/webhooks/${escapePointer(event.name)}/post/requestBody/content/application~1json/schema`;
      validate = this.spec.compiler.compile({ $ref: pointer });
      this.validators.set(event.name, validate);
    }
    if (validate(event)) return null;
    return toErrorDetails('body', validate.errors)
      .map((d) => d.message)
      .join(' ');
  }
}
