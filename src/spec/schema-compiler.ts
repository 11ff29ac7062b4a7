// Two ajv instances per OpenAPI document (one coercing parameters, one strict for bodies): the
// document is added whole under an id, so every `#/components/...` reference inside it resolves,
// and each operation's validators are compiled once, on first use, from schemas that point into it.
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { ErrorDetail, ErrorLocation } from '../errors/api-error.js';

// ajv-formats is CommonJS; under NodeNext its default export arrives wrapped.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv2020) => void;

export class SchemaCompiler {
  /**
   * Made on first use: adding a document walks all of it (about 20 ms for openapi.json at start-up),
   * and a start that serves GETs never needs the strict instance, nor the control API's at all.
   */
  private coercing: Ajv2020 | undefined;
  private strict: Ajv2020 | undefined;
  /** For schemas that point at nothing (every parameter of openapi.json): no document to add. */
  private coercingAlone: Ajv2020 | undefined;

  constructor(
    readonly docId: string,
    private readonly doc: object,
    private readonly references: Array<{ id: string; doc: object }> = [],
  ) {}

  /** Query, path and header values arrive as strings: the coercing instances turn them into the declared types. */
  private ajv(coerce: boolean, refers: boolean): Ajv2020 {
    if (coerce && !refers) return (this.coercingAlone ??= this.make(true, false));
    if (coerce) return (this.coercing ??= this.make(true, true));
    return (this.strict ??= this.make(false, true));
  }

  private make(coerceTypes: boolean, withDocuments: boolean): Ajv2020 {
    // inlineRefs off: each component schema compiles once and is shared by every validator that
    // points at it; validateSchema off: the documents are checked by an OpenAPI validator in the
    // tests, not at every start. Both keep start-up well under the 500 ms budget.
    const ajv = new Ajv2020({
      allErrors: true,
      strict: false,
      coerceTypes,
      useDefaults: true,
      validateFormats: true,
      inlineRefs: false,
      validateSchema: false,
    });
    addFormats(ajv);
    if (!withDocuments) return ajv;
    ajv.addSchema(this.doc, this.docId);
    for (const ref of this.references) ajv.addSchema(ref.doc, ref.id);
    return ajv;
  }

  private readonly compiled = new Map<string, ValidateFunction>();

  /**
   * Compiles a schema found inside the document, or an inline schema whose refs point into it. Equal
   * schemas (the merchant account header of every operation, uuid path parameters) compile once.
   */
  compile(schema: object, { coerce = false } = {}): ValidateFunction {
    const text = JSON.stringify(schema);
    const key = `${coerce ? 'c' : 's'}${text}`;
    let validate = this.compiled.get(key);
    if (!validate) {
      validate = this.ajv(coerce, text.includes('"$ref"')).compile(this.absolutize(schema));
      this.compiled.set(key, validate);
    }
    return validate;
  }

  /** `#/components/schemas/X` -> `<docId>#/components/schemas/X`, so inline schemas can use them. */
  private absolutize(schema: unknown): object {
    return JSON.parse(JSON.stringify(schema), (key, value) =>
      key === '$ref' && typeof value === 'string' && value.startsWith('#') ? `${this.docId}${value}` : value,
    );
  }
}

const TYPE_CODES: Record<string, string> = {
  string: 'string_type',
  integer: 'int_type',
  number: 'float_type',
  boolean: 'bool_type',
  object: 'dict_type',
  array: 'list_type',
  null: 'none_required',
};

/** A key as a token of a JSON pointer (RFC 6901: ~ as ~0, / as ~1). */
export const escapePointer = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');

/** Header names are HTTP tokens (RFC 9110 section 5.6.2), at most 100 characters here. */
export const HEADER_NAME_PATTERN = "^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,100}$";
/** A JSON pointer (RFC 6901): empty for the whole document, or starting with /. */
export const JSON_POINTER_PATTERN = '^(/.*)?$';

/** What a key pattern asks for, said as a fix (the pattern itself tells a caller little). */
const KEY_PATTERN_MEANINGS: Record<string, (key: string) => string> = {
  [HEADER_NAME_PATTERN]: () => "is not a header name: give 1 to 100 letters, digits or !#$%&'*+.^_`|~- (no spaces, colons or other characters)",
  [JSON_POINTER_PATTERN]: (key) => `is not a JSON pointer: start it with / (e.g. '/${key.slice(0, 40)}' for the field ${key.slice(0, 40)})`,
};

/**
 * A key refused by a propertyNames rule (ajv names it in propertyName), or null: where it is and
 * what is wrong with it, naming the key.
 */
export function keyProblem(e: ErrorObject): { pointer: string; why: string } | null {
  const key = e.propertyName;
  if (key === undefined) return null;
  const p = e.params as Record<string, any>;
  const shown = `'${key.slice(0, 100)}'`;
  let why: string;
  if (e.keyword === 'pattern') why = `${shown} ${KEY_PATTERN_MEANINGS[p.pattern]?.(key) ?? `must match the pattern ${p.pattern}`}`;
  else if (e.keyword === 'maxLength') why = `${shown} is longer than ${p.limit} characters`;
  else why = `${shown} ${e.message ?? 'is not allowed'}`;
  return { pointer: `${e.instancePath}/${escapePointer(key)}`, why };
}

/** Turns ajv errors into the reference's `details`: one item per problem, each telling what to fix. */
export function toErrorDetails(location: ErrorLocation, errors: ErrorObject[] | null | undefined): ErrorDetail[] {
  if (!errors?.length) return [];
  // `oneOf: [X, {type: null}]` reports the branch mismatch twice; keep the specific errors.
  // propertyNames follows the rule a key broke (which names the key) with a generic echo.
  const specific = errors.filter((e) => e.keyword !== 'oneOf' && e.keyword !== 'anyOf' && e.keyword !== 'if' && e.keyword !== 'propertyNames');
  const useful = specific.filter(
    (e) => !(e.keyword === 'type' && e.params.type === 'null' && specific.some((o) => o !== e && o.instancePath.startsWith(e.instancePath))),
  );
  const seen = new Set<string>();
  const details: ErrorDetail[] = [];
  for (const e of useful.length ? useful : errors) {
    const d = detailOf(location, e);
    const key = `${d.pointer}|${d.type}`;
    if (seen.has(key)) continue;
    seen.add(key);
    details.push(d);
  }
  return details;
}

function detailOf(location: ErrorLocation, e: ErrorObject): ErrorDetail {
  const where = (pointer: string) => (pointer ? `${location} ${location === 'body' ? 'field' : 'parameter'} '${pointer.slice(1)}'` : `the ${location}`);
  const p = e.params as Record<string, any>;
  const key = keyProblem(e);
  if (key) return { location, pointer: key.pointer, type: 'invalid_key', message: `${cap(where(e.instancePath))}: the key ${key.why}.` };
  switch (e.keyword) {
    case 'required': {
      const pointer = `${e.instancePath}/${escapePointer(p.missingProperty)}`;
      return { location, pointer, type: 'missing', message: `${cap(where(pointer))} is required.` };
    }
    case 'additionalProperties': {
      const pointer = `${e.instancePath}/${escapePointer(p.additionalProperty)}`;
      return { location, pointer, type: 'extra_forbidden', message: `${cap(where(pointer))} is not allowed; remove it.` };
    }
    case 'type':
      return {
        location,
        pointer: e.instancePath,
        type: TYPE_CODES[Array.isArray(p.type) ? p.type[0] : p.type] ?? 'type_error',
        message: `${cap(where(e.instancePath))} must be of type ${Array.isArray(p.type) ? p.type.join(' or ') : p.type}.`,
      };
    case 'minLength':
      return {
        location,
        pointer: e.instancePath,
        type: 'string_too_short',
        message: `${cap(where(e.instancePath))} must have at least ${p.limit} character${p.limit === 1 ? '' : 's'}.`,
      };
    case 'maxLength':
      return { location, pointer: e.instancePath, type: 'string_too_long', message: `${cap(where(e.instancePath))} must have at most ${p.limit} characters.` };
    case 'pattern':
      return {
        location,
        pointer: e.instancePath,
        type: 'string_pattern_mismatch',
        message: `${cap(where(e.instancePath))} must match the pattern ${p.pattern}.`,
      };
    case 'format': {
      const type = p.format === 'uuid' ? 'uuid_parsing' : p.format === 'date-time' ? 'datetime_parsing' : p.format === 'uri' ? 'url_parsing' : 'format';
      return { location, pointer: e.instancePath, type, message: `${cap(where(e.instancePath))} must be a valid ${p.format}.` };
    }
    case 'enum':
      return {
        location,
        pointer: e.instancePath,
        type: 'enum',
        message: `${cap(where(e.instancePath))} must be one of: ${(p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}.`,
      };
    case 'const':
      return { location, pointer: e.instancePath, type: 'literal_error', message: `${cap(where(e.instancePath))} must be ${JSON.stringify(p.allowedValue)}.` };
    case 'minimum':
      return { location, pointer: e.instancePath, type: 'greater_than_equal', message: `${cap(where(e.instancePath))} must be at least ${p.limit}.` };
    case 'maximum':
      return { location, pointer: e.instancePath, type: 'less_than_equal', message: `${cap(where(e.instancePath))} must be at most ${p.limit}.` };
    case 'minItems':
      return {
        location,
        pointer: e.instancePath,
        type: 'too_short',
        message: `${cap(where(e.instancePath))} must have at least ${p.limit} item${p.limit === 1 ? '' : 's'}.`,
      };
    case 'maxItems':
      return { location, pointer: e.instancePath, type: 'too_long', message: `${cap(where(e.instancePath))} must have at most ${p.limit} items.` };
    default:
      return { location, pointer: e.instancePath, type: e.keyword, message: `${cap(where(e.instancePath))} ${e.message ?? 'is invalid'}.` };
  }
}

const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
