// The JSON schema every scenario file (YAML or JSON) is checked against at boot. Cross-checks the
// schema cannot express (operations and statuses of openapi.json, one action per step) are made in
// load-scenarios.ts.
import { COLLECTION_NAMES } from '../store/records.js';
import { DURATION_PATTERN } from './duration.js';

const EXECUTION_STATUSES = ['pending', 'dispatched', 'processing', 'succeeded', 'failed'];

const respond = {
  type: 'object',
  additionalProperties: false,
  required: ['status'],
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
    retry_after: { type: 'integer', minimum: 0, maximum: 86400 },
    resource_id: {
      type: ['string', 'object'],
      minLength: 1,
      additionalProperties: false,
      required: ['collection'],
      properties: { collection: { enum: [...COLLECTION_NAMES] }, merchant_account: { type: 'boolean' } },
    },
    headers: { type: 'object', additionalProperties: { type: 'string' } },
  },
};

const actionProperties = {
  delay_ms: { type: 'integer', minimum: 0, maximum: 120_000 },
  respond,
  override: {},
  merge: { type: 'object' },
  drop: { const: true },
  pass: { const: true },
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
    },
    seed: { type: 'integer' },
    steps: {
      type: 'array',
      minItems: 1,
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
