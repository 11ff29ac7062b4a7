// Every control operation that takes input (parameters or a body) declares its 400 in
// openapi.admin.json: request validation answers 400 to bad input on any of them, and in self-check
// mode (--validate-responses, on in every test sandbox) an undeclared status becomes a 500.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const doc = JSON.parse(readFileSync(join(import.meta.dirname, '../../openapi.admin.json'), 'utf8'));
const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

describe('openapi.admin.json', () => {
  it('declares 400 on every operation with parameters or a body', () => {
    const withInput: string[] = [];
    const missing: string[] = [];
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      for (const method of METHODS) {
        const op = item[method];
        if (!op) continue;
        const inputs = (item.parameters?.length ?? 0) + (op.parameters?.length ?? 0) + (op.requestBody ? 1 : 0);
        if (inputs === 0) continue;
        withInput.push(op.operationId);
        const declared = op.responses['400'];
        if (declared?.content?.['application/json']?.schema?.$ref !== '#/components/schemas/Error')
          missing.push(`${op.operationId} (${method.toUpperCase()} ${path})`);
      }
    }
    expect(withInput.length).toBeGreaterThan(25); // the walk found the operations
    expect(withInput).toEqual(expect.arrayContaining(['listWebhookDeliveries', 'rotateWebhookSecret', 'getScenario', 'getWebhookDelivery']));
    expect(missing).toEqual([]);
  });
});
