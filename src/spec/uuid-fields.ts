// uuids are accepted in any letter case and stored and answered in lower case (api-decisions.md):
// every field the documents declare `format: uuid` (parameters, body fields at any depth, items of
// uuid arrays) is brought to its canonical form once, after validation, instead of by each handler.
// Which fields those are is worked out from the schemas once, when an operation is indexed; on the
// request path a value is only scanned, and copied only when it has an upper-case letter (or the
// `urn:uuid:` prefix the format also allows).

/** A step into a value: a property name, or EVERY_ITEM for each item of an array. */
export const EVERY_ITEM = Symbol('every item');
export type FieldPath = ReadonlyArray<string | typeof EVERY_ITEM>;

/**
 * Looks up a `$ref` found in document `base` (`#/...` in it, or `other.json#/...`): the schema it
 * points at (undefined for none) and the document that schema is in, which its own refs are relative to.
 */
export type RefResolver = (ref: string, base: string) => { schema: unknown; base: string };

/** Where a schema of document `base` holds uuids: the paths into a value of that schema (an empty path: the value itself). */
export function uuidPaths(schema: unknown, base: string, resolve: RefResolver): FieldPath[] {
  const found: FieldPath[] = [];
  walk({ resolve, found, refsOnPath: new Set(), seen: new Set() }, schema, base, []);
  return found;
}

interface Walk {
  resolve: RefResolver;
  found: FieldPath[];
  /** Refs being followed on the way here: a recursive schema is followed once (a uuid inside it at any depth is not declared). */
  refsOnPath: Set<string>;
  /** Paths found, as text, so each is listed once. */
  seen: Set<string>;
}

function walk(w: Walk, schema: unknown, base: string, path: FieldPath): void {
  if (!schema || typeof schema !== 'object') return;
  const node = schema as Record<string, unknown>;
  if (typeof node.$ref === 'string') {
    const key = `${base} ${node.$ref}`;
    if (!w.refsOnPath.has(key)) {
      w.refsOnPath.add(key);
      const target = w.resolve(node.$ref, base);
      walk(w, target.schema, target.base, path);
      w.refsOnPath.delete(key);
    }
  }
  if (node.format === 'uuid') {
    const key = path.map((step) => (step === EVERY_ITEM ? '\u0000' : step)).join('\u0001');
    if (!w.seen.has(key)) {
      w.seen.add(key);
      w.found.push(path);
    }
  }
  for (const combinator of ['oneOf', 'anyOf', 'allOf'] as const) {
    const branches = node[combinator];
    if (Array.isArray(branches)) for (const branch of branches) walk(w, branch, base, path);
  }
  const properties = node.properties;
  if (properties && typeof properties === 'object') {
    for (const [name, property] of Object.entries(properties)) walk(w, property, base, [...path, name]);
  }
  if (node.items && typeof node.items === 'object' && !Array.isArray(node.items)) walk(w, node.items, base, [...path, EVERY_ITEM]);
}

/** An upper-case hex digit: the only letters a valid uuid can have besides a-f. Hoisted: a literal in a function is a new object per call. */
const UPPER_HEX = /[A-F]/;
const URN_PREFIX = /^urn:uuid:/i;

/** The canonical form of a valid uuid: lower case, without a `urn:uuid:` prefix. The same string when it is already. */
export function canonicalUuid(value: string): string {
  // A valid uuid is 36 characters, 45 with the prefix. A regex test allocates nothing (about 45 ns,
  // a scan with charCodeAt about twice that); toLowerCase() would copy every value.
  if (value.length === 36) return UPPER_HEX.test(value) ? value.toLowerCase() : value;
  return value.length === 45 && URN_PREFIX.test(value) ? value.slice(9).toLowerCase() : value;
}

/** Brings the uuids at `paths` of `target` (an object of parts, or a body) to their canonical form, in place. */
export function canonicalizeAt(target: unknown, paths: readonly FieldPath[]): void {
  for (let i = 0; i < paths.length; i++) canonicalizePath(target, paths[i], 0);
}

function canonicalizePath(container: unknown, path: FieldPath, at: number): void {
  if (container === null || typeof container !== 'object') return;
  const step = path[at];
  const last = at === path.length - 1;
  if (step === EVERY_ITEM) {
    if (!Array.isArray(container)) return;
    for (let i = 0; i < container.length; i++) {
      if (!last) canonicalizePath(container[i], path, at + 1);
      else if (typeof container[i] === 'string') {
        const canonical = canonicalUuid(container[i]);
        if (canonical !== container[i]) container[i] = canonical;
      }
    }
    return;
  }
  const record = container as Record<string, unknown>;
  if (!Object.hasOwn(record, step)) return;
  const value = record[step];
  if (!last) canonicalizePath(value, path, at + 1);
  else if (typeof value === 'string') {
    const canonical = canonicalUuid(value);
    if (canonical !== value) record[step] = canonical;
  }
}
