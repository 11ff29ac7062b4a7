// Compares the sandbox's answer with the upstream's by the contract openapi.json declares, not byte
// for byte (ids, times and amounts differ between any two services): the status; then, against the
// declared schema of that status's body, every required field the upstream left out, every field it
// sent that the schema does not declare, and each value whose type, format, const or enum the
// schema does not allow; and the response headers the operation declares, present on one side only.
import type { Operation, SpecIndex } from '../spec/operations.js';
import { formatAccepts } from './formats.js';

export type DifferenceKind = 'status' | 'missing_field' | 'new_field' | 'type' | 'format' | 'enum_value' | 'header' | 'body';

export interface Difference {
  kind: DifferenceKind;
  /** Where: `status`, a header name, or the field's path in the body (`items[].state`; '' for the body itself). */
  at: string;
  sandbox: unknown;
  upstream: unknown;
  message: string;
}

export interface ComparedAnswer {
  status: number;
  headers: Record<string, string>;
  /** The parsed JSON body; undefined when there was none. */
  body: unknown;
}

type Schema = Record<string, any>;

/** Items of a list compared at most: a contract drift shows in the first ones as well as in the hundredth. */
const MAX_ITEMS = 25;
/** Differences one comparison keeps at most (one per kind and place already). */
const MAX_DIFFERENCES = 50;

export class ContractComparer {
  /** Each schema object flattened once: the documents do not change, and a list's items share one schema. */
  private readonly flattened = new WeakMap<Schema, Schema>();

  constructor(private readonly spec: SpecIndex) {}

  operation(id: string): Operation | undefined {
    return this.spec.byId.get(id);
  }

  compare(operation: Operation, sandbox: ComparedAnswer, upstream: ComparedAnswer): Difference[] {
    if (sandbox.status !== upstream.status) {
      return [
        {
          kind: 'status',
          at: 'status',
          sandbox: sandbox.status,
          upstream: upstream.status,
          message: `the sandbox answered ${sandbox.status}, the upstream ${upstream.status}`,
        },
      ];
    }
    const response = this.responseOf(operation, sandbox.status);
    if (!response) return [];
    const found = new Differences();
    for (const name of Object.keys(response.headers ?? {})) {
      const header = name.toLowerCase();
      const [ours, theirs] = [sandbox.headers[header], upstream.headers[header]];
      if ((ours === undefined) !== (theirs === undefined)) {
        found.add(
          'header',
          header,
          ours ?? null,
          theirs ?? null,
          `the declared header ${header} is sent by the ${ours === undefined ? 'upstream' : 'sandbox'} only`,
        );
      }
    }
    const schema = response.content?.['application/json']?.schema;
    if (schema && upstream.body !== undefined) this.walk(schema, sandbox.body, upstream.body, '', found);
    return found.list;
  }

  /** The declared response of that status (else `default`), its $ref followed. */
  private responseOf(operation: Operation, status: number): Schema | undefined {
    const item = (this.spec.doc.paths as Record<string, Record<string, Schema>>)[operation.path]?.[operation.method.toLowerCase()];
    const response = item?.responses?.[String(status)] ?? item?.responses?.default;
    return response ? this.deref(response) : undefined;
  }

  private deref(schema: Schema): Schema {
    let current = schema;
    for (let hops = 0; current && typeof current.$ref === 'string' && hops < 20; hops++) {
      current = this.spec.resolve(current.$ref, 'openapi.json').schema as Schema;
    }
    return current ?? {};
  }

  /** `ours`: the sandbox's value at the same place (undefined when it has none, or another record's kind). */
  private walk(raw: Schema, ours: unknown, theirs: unknown, at: string, found: Differences): void {
    if (found.full) return;
    const schema = this.flatten(raw);
    const alternatives = schema.oneOf ?? schema.anyOf;
    if (alternatives) {
      const branch = this.branchFor(alternatives, theirs);
      if (!branch) {
        found.add('type', at, kindOf(ours), kindOf(theirs), `the upstream's ${kindOf(theirs)} matches none of the declared alternatives`);
        return;
      }
      this.walk(branch, this.branchFor(alternatives, ours) === branch ? ours : undefined, theirs, at, found);
      return;
    }
    const kind = kindOf(theirs);
    if (!typeAllows(schema.type, kind)) {
      const allowed = (typesOf(schema) ?? []).join(' or ');
      found.add('type', at, ours === undefined ? null : kindOf(ours), kind, `declared ${allowed}, the upstream sent ${kind}`);
      return;
    }
    if (schema.const !== undefined && theirs !== schema.const) {
      found.add('enum_value', at, ours ?? null, theirs, `declared the constant ${JSON.stringify(schema.const)}, the upstream sent ${JSON.stringify(theirs)}`);
    } else if (Array.isArray(schema.enum) && !schema.enum.includes(theirs)) {
      found.add(
        'enum_value',
        at,
        ours ?? null,
        theirs,
        `${JSON.stringify(theirs)} is not one of the declared values (${schema.enum.map((v: unknown) => JSON.stringify(v)).join(', ')})`,
      );
    }
    if (kind === 'string' && typeof schema.format === 'string' && !formatAccepts(schema.format, theirs as string)) {
      found.add('format', at, ours ?? null, theirs, `not a ${schema.format} as declared`);
    }
    if (kind === 'object') this.walkObject(schema, isObject(ours) ? ours : undefined, theirs as Record<string, unknown>, at, found);
    if (kind === 'array' && schema.items) {
      const items = theirs as unknown[];
      const oursList = Array.isArray(ours) && ours.length ? ours : undefined;
      const itemsAt = `${at}[]`;
      for (let i = 0; i < items.length && i < MAX_ITEMS; i++) {
        // The sandbox's item at that place, else its last: another record of the same list, for the fields it shows.
        this.walk(schema.items, oursList ? oursList[Math.min(i, oursList.length - 1)] : undefined, items[i], itemsAt, found);
      }
    }
  }

  private walkObject(schema: Schema, ours: Record<string, unknown> | undefined, theirs: Record<string, unknown>, at: string, found: Differences): void {
    const properties: Record<string, Schema> = schema.properties ?? {};
    const field = (name: string) => (at ? `${at}.${name}` : name);
    for (const name of schema.required ?? []) {
      if (!Object.hasOwn(theirs, name)) {
        found.add('missing_field', field(name), ours?.[name] ?? null, null, `the declared field ${field(name)} is missing from the upstream's answer`);
      }
    }
    // for...in, not Object.keys(): no array made, and V8 reads theirs[name] from the object's enum cache (a parsed body has no inherited keys).
    for (const name in theirs) {
      const declared = properties[name] ?? (isObject(schema.additionalProperties) ? schema.additionalProperties : undefined);
      if (declared) this.walk(declared, ours?.[name], theirs[name], field(name), found);
      // Sent by the sandbox too: both sides agree, the contract only lags (the sandbox's self-check speaks for its own answers).
      else if ((schema.properties || schema.additionalProperties === false) && (ours === undefined || !Object.hasOwn(ours, name))) {
        found.add('new_field', field(name), ours?.[name] ?? null, theirs[name], `the upstream sent ${field(name)}, which the contract does not declare`);
      }
    }
  }

  /** allOf merged into one schema (properties and required of every part), $refs followed. */
  private flatten(raw: Schema): Schema {
    let flat = this.flattened.get(raw);
    if (!flat) this.flattened.set(raw, (flat = this.flattenOnce(raw)));
    return flat;
  }

  private flattenOnce(raw: Schema): Schema {
    // A $ref beside other keywords (JSON Schema 2020-12) applies both: as allOf.
    const { $ref, ...siblings } = raw;
    const schema = typeof $ref === 'string' && Object.keys(siblings).length ? { ...siblings, allOf: [{ $ref }, ...(siblings.allOf ?? [])] } : this.deref(raw);
    if (!Array.isArray(schema.allOf)) return schema;
    const merged: Schema = { ...schema, allOf: undefined, properties: { ...(schema.properties ?? {}) }, required: [...(schema.required ?? [])] };
    for (const part of schema.allOf.map((p: Schema) => this.flatten(p))) {
      Object.assign(merged.properties, part.properties ?? {});
      merged.required.push(...(part.required ?? []));
      for (const key of ['type', 'oneOf', 'anyOf', 'additionalProperties', 'enum', 'const', 'format', 'items']) {
        if (part[key] !== undefined && merged[key] === undefined) merged[key] = part[key];
      }
    }
    return merged;
  }

  /** The alternative a value is of: its JSON type allowed, and for an object its `type` constant when the branch names one. */
  private branchFor(alternatives: Schema[], value: unknown): Schema | undefined {
    if (value === undefined) return undefined;
    const kind = kindOf(value);
    const fits = alternatives.filter((raw) => {
      const branch = this.flatten(raw);
      if (!typeAllows(branch.type, kind)) return false;
      if (branch.oneOf || branch.anyOf) return this.branchFor(branch.oneOf ?? branch.anyOf, value) !== undefined;
      const constant = branch.properties?.type?.const;
      return constant === undefined || !isObject(value) || value.type === constant;
    });
    return fits[0];
  }
}

class Differences {
  readonly list: Difference[] = [];
  private readonly seen = new Set<string>();

  get full(): boolean {
    return this.list.length >= MAX_DIFFERENCES;
  }

  add(kind: DifferenceKind, at: string, sandbox: unknown, upstream: unknown, message: string): void {
    const key = `${kind} ${at}`;
    if (this.seen.has(key) || this.full) return;
    this.seen.add(key);
    this.list.push({ kind, at, sandbox, upstream, message });
  }
}

/** Whether a declared `type` (none, one, or a list) takes a value of this kind: an integer is a number too. */
function typeAllows(type: unknown, kind: string): boolean {
  if (type === undefined) return true;
  if (typeof type === 'string') return type === kind || (kind === 'integer' && type === 'number');
  return Array.isArray(type) && (type.includes(kind) || (kind === 'integer' && type.includes('number')));
}

function typesOf(schema: Schema): string[] | undefined {
  if (schema.type === undefined) return undefined;
  return Array.isArray(schema.type) ? schema.type : [schema.type];
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
