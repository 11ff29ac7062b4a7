// The JSON schema of a scenario: every scenario file (YAML or JSON) is checked against it at boot,
// and every body defining one through the control API (POST/PUT /_sandbox/scenarios) when it is
// sent; openapi.admin.json carries the same schema as ScenarioDefinition (a test keeps them equal).
// Cross-checks the schema cannot express (operations and statuses of openapi.json, one action per
// step, regular expressions that compile) are made in compile-scenario.ts.
import { HEADER_NAME_PATTERN, JSON_POINTER_PATTERN } from '../spec/schema-compiler.js';
import { COLLECTION_NAMES } from '../store/records.js';
import { DURATION_PATTERN } from './duration.js';

const EXECUTION_STATUSES = ['pending', 'dispatched', 'processing', 'succeeded', 'failed'];

/** Header names are HTTP tokens; values printable ASCII (a line break would split the answer). */
const headers = {
  type: 'object',
  maxProperties: 20,
  propertyNames: { pattern: HEADER_NAME_PATTERN },
  additionalProperties: { type: 'string', maxLength: 1000, pattern: '^[\\t\\x20-\\x7e]*$' },
  description: 'Extra headers on the answer.',
};

const respond = {
  type: 'object',
  additionalProperties: false,
  required: ['status'],
  description:
    "An error answer: the reference's error body for the status. The status must be one the operation declares, or 429 or any 5xx, which may come on any operation.",
  properties: {
    status: { type: 'integer', minimum: 400, maximum: 599 },
    code: { type: 'string', minLength: 1, maxLength: 100 },
    message: { type: 'string', minLength: 1, maxLength: 2000 },
    details: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['location', 'type', 'pointer', 'message'],
        properties: {
          location: { enum: ['body', 'query', 'path', 'header', 'unknown'] },
          type: { type: 'string' },
          pointer: { type: 'string' },
          message: { type: 'string' },
        },
      },
    },
    retry_after: {
      type: 'integer',
      minimum: 0,
      maximum: 86400,
      description:
        'Seconds, sent as Retry-After (429 defaults to 1 unless a Retry-After is given in headers). One Retry-After per answer: with a Retry-After in respond.headers or the step headers (any case) it is a 400.',
    },
    resource_id: {
      type: ['string', 'object'],
      minLength: 1,
      additionalProperties: false,
      required: ['collection'],
      properties: { collection: { enum: [...COLLECTION_NAMES] }, merchant_account: { type: 'boolean' } },
    },
    headers,
    body: { description: "Sent as it is instead of the reference's error body (not checked against openapi.json, on purpose)." },
  },
};

const delayMs = {
  type: ['integer', 'object'],
  minimum: 0,
  maximum: 120_000,
  additionalProperties: false,
  required: ['min', 'max'],
  properties: { min: { type: 'integer', minimum: 0, maximum: 120_000 }, max: { type: 'integer', minimum: 0, maximum: 120_000 } },
  description: 'Wait this long (real time) before the step acts: milliseconds, or {min, max} drawn from the seeded random source.',
};

const loseAnswer = {
  type: 'object',
  additionalProperties: false,
  properties: { status: { type: 'integer', minimum: 500, maximum: 599 }, drop: { const: true } },
  description:
    'Done, but the answer is lost: the operation runs and its change is kept, then the client gets this 5xx (default 504) or, with drop, a closed connection.',
};

/** The actions a step may take; delay_ms and headers go with any of them. */
const actionProperties = {
  delay_ms: delayMs,
  respond,
  override: { description: 'Replaces the JSON success body (not checked against openapi.json, on purpose).' },
  merge: { type: 'object', description: 'Deep-merged into the JSON success body.' },
  drop: { const: true, description: 'Closes the connection without an answer.' },
  pass: { const: true, description: 'Runs normally.' },
  lose_answer: loseAnswer,
  headers,
};

/** A request value is equal to a scalar, or {equals: any}, {matches: regular expression} or {present: boolean}. */
const valueCondition = {
  type: ['string', 'number', 'boolean', 'null', 'object'],
  additionalProperties: false,
  minProperties: 1,
  maxProperties: 1,
  properties: {
    equals: {},
    matches: { type: 'string', minLength: 1, maxLength: 500, description: 'A regular expression, tested on the first 1024 characters of the value.' },
    present: { type: 'boolean' },
  },
};

const oneOrMore = (item: object) => ({ type: ['string', 'array'], minLength: 1, maxLength: 200, minItems: 1, maxItems: 50, items: item });

const match = {
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  description: 'Which requests of its operations the scenario takes a step for: every condition given must hold.',
  properties: {
    method: oneOrMore({ type: 'string', pattern: '^[A-Za-z]+$' }),
    path: {
      type: 'string',
      pattern: '^/',
      maxLength: 500,
      description:
        'The request path (without /ns/{name}), tested decoded and without its query; * matches any characters. A ? or a percent-escape could never match: 400.',
    },
    merchant_account_id: oneOrMore({ type: 'string', minLength: 1, maxLength: 200 }),
    query: {
      type: 'object',
      maxProperties: 20,
      additionalProperties: valueCondition,
      description: 'Query parameters by name. Values are text: a condition equal to null, an object or an array equals nothing (400).',
    },
    headers: {
      type: 'object',
      maxProperties: 20,
      propertyNames: { pattern: HEADER_NAME_PATTERN },
      additionalProperties: valueCondition,
      description:
        'Request headers by name, in any case (header names are case-insensitive; one name twice in different case is a 400). Values are text: a condition equal to null, an object or an array equals nothing (400).',
    },
    body: {
      type: 'object',
      maxProperties: 20,
      propertyNames: { pattern: JSON_POINTER_PATTERN, maxLength: 500 },
      additionalProperties: valueCondition,
      description: 'Values of the JSON body by JSON pointer (e.g. /name).',
    },
  },
};

const duration = { type: ['integer', 'string'], minimum: 0, pattern: DURATION_PATTERN };

export const SCENARIO_FILE_SCHEMA = {
  $id: 'payments-sandbox/scenario-file',
  type: 'object',
  additionalProperties: false,
  required: ['name', 'description'],
  properties: {
    name: { type: 'string', pattern: '^[a-z0-9][a-z0-9._-]{0,63}$' },
    description: { type: 'string', minLength: 1, maxLength: 1000 },
    operations: {
      type: ['string', 'array'],
      if: { type: 'string' },
      // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then keyword, not a promise
      then: { const: '*' },
      minItems: 1,
      items: { type: 'string', minLength: 1 },
      description: 'operationIds, "METHOD /path" templates, or "*" for every operation that can give what the steps answer.',
    },
    match,
    seed: { type: 'integer' },
    steps: {
      type: 'array',
      minItems: 1,
      maxItems: 1000,
      description: 'The sequence: each step answers `times` requests (default 1); the last step repeats forever.',
      items: {
        type: 'object',
        additionalProperties: false,
        minProperties: 1,
        properties: {
          ...actionProperties,
          times: { type: 'integer', minimum: 1 },
          random: {
            type: 'object',
            additionalProperties: false,
            required: ['share'],
            properties: { share: { type: 'number', minimum: 0, maximum: 1 }, ...actionProperties },
          },
        },
      },
    },
    // Shorthands instead of steps: one action, on the calls they name; they compile to steps.
    ...actionProperties,
    calls: {
      type: 'array',
      minItems: 1,
      maxItems: 100,
      uniqueItems: true,
      items: { type: 'integer', minimum: 1, maximum: 1_000_000 },
      description: 'Shorthand: the action on these matching calls only (1 is the first).',
    },
    after: { type: 'integer', minimum: 0, maximum: 1_000_000, description: 'Shorthand: the action from the call after this many on.' },
    times: { type: 'integer', minimum: 1, description: 'Shorthand: the action on this many calls (after `after`), then normal answers.' },
    probability: { type: 'number', minimum: 0, maximum: 1, description: 'Shorthand: the action on this share of the calls, seeded.' },
    webhooks: {
      type: 'object',
      additionalProperties: false,
      minProperties: 1,
      description:
        'How the deliveries of the events caused by the requests it takes a step for are sent; a field left out follows PUT /_sandbox/webhooks/behaviour. Alone (no steps, no action), it passes those requests; without operations or match.method/path it takes the operations that announce events, and narrowed by "*", match.method or match.path it keeps those that announce (naming one that does not is a 400). Refused (400) when it could never act: every step answers an error or drops the connection (a failed request announces nothing), or none of its operations announces an event.',
      properties: {
        delay_ms: {
          type: 'integer',
          minimum: 0,
          maximum: 86_400_000,
          description: 'Each delivery is due this much later on the namespace clock (at most a day).',
        },
        duplicate: {
          type: ['boolean', 'integer'],
          minimum: 1,
          maximum: 10,
          description: 'Deliveries of each event to each subscription, one event id: true for 2, false for 1, or a number up to 10.',
        },
        reorder: { type: 'boolean', description: 'Its deliveries that fall due together go out newest first, one at a time (give delay_ms so that they do).' },
      },
    },
    report_execution: {
      type: 'object',
      additionalProperties: false,
      required: ['path'],
      properties: {
        path: { type: 'array', minItems: 1, items: { enum: EXECUTION_STATUSES } },
        durations: { type: 'array', items: duration },
      },
    },
  },
} as const;
