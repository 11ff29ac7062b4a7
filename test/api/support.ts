// Shared assertions of the API tests: JSON success responses, the reference's 400/404/422 bodies and
// the formats of generated fields.

import type { Response } from 'supertest';
import { afterAll, beforeAll, beforeEach, expect } from 'vitest';
import { expectErrorBody, startTestSandbox, type TestSandbox } from '../support/sandbox.js';

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** RFC 3339 with milliseconds and Z, as the sandbox writes every timestamp. */
export const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
export const MERCHANT_HEADER = 'x-service-merchant-account-id';
/** The instant tests freeze the namespace clock at: Sunday 2026-11-22 10:00 UTC. */
export const FROZEN_AT = '2026-11-22T10:00:00.000Z';

/** Freezes the default namespace's clock so written timestamps are exact. */
export function freezeClock(sb: TestSandbox, at = FROZEN_AT): void {
  sb.deps.namespaces.get().clock.freeze(Date.parse(at));
}

/**
 * One sandbox for the describe block it is called in, back to the fixtures with a frozen clock
 * before each test. The returned object forwards to the sandbox once beforeAll has built it.
 */
export function useFrozenSandbox(): TestSandbox {
  let current: TestSandbox | undefined;
  beforeAll(async () => {
    current = await startTestSandbox();
  });
  beforeEach(() => {
    current!.deps.namespaces.reset('default');
    freezeClock(current!);
  });
  afterAll(() => current?.server.close());
  return new Proxy({} as TestSandbox, { get: (_target, key) => current![key as keyof TestSandbox] });
}

export function store(sb: TestSandbox) {
  return sb.deps.namespaces.get().store.collections;
}

export function expectJson(res: Response, status: number): void {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.headers['content-type']).toBe('application/json');
}

/** 204: no body and no content type. */
export function expectNoContent(res: Response): void {
  expect(res.status, JSON.stringify(res.body)).toBe(204);
  expect(res.headers['content-type']).toBeUndefined();
  expect(res.text ?? '').toBe('');
}

export interface DetailSpec {
  location: string;
  pointer: string;
  type: string;
}

/** A 400 bad_request whose details are exactly these problems (any order), each with a message. */
export function expectBadRequest(res: Response, expected: DetailSpec[]): void {
  expectJson(res, 400);
  expectErrorBody(res.body, 400, 'bad_request');
  const got = (res.body.details as Array<DetailSpec & { message: string }>).map(({ location, pointer, type }) => ({ location, pointer, type }));
  const key = (d: DetailSpec) => `${d.location}|${d.pointer}|${d.type}`;
  expect(got.map(key).sort()).toEqual(expected.map(key).sort());
  for (const d of res.body.details) {
    expect(Object.keys(d).sort()).toEqual(['location', 'message', 'pointer', 'type']);
    expect(d.message.length).toBeGreaterThan(10);
  }
  expect(res.body.message.length).toBeGreaterThan(10);
}

export function expectNotFound(res: Response): void {
  expectJson(res, 404);
  expectErrorBody(res.body, 404, 'not_found');
  expect(res.body.details).toEqual([]);
}

export function expectForbidden(res: Response): void {
  expectJson(res, 403);
  expectErrorBody(res.body, 403, 'forbidden');
}

/** The reference's 422 body: one item per problem, `loc` starting with the location. */
export function expectUnprocessable(res: Response, items: Array<{ loc: string[]; input: unknown }>): void {
  expectJson(res, 422);
  expect(Object.keys(res.body)).toEqual(['detail']);
  expect(res.body.detail).toHaveLength(items.length);
  res.body.detail.forEach((item: any, i: number) => {
    expect(Object.keys(item).sort()).toEqual(['ctx', 'input', 'loc', 'msg', 'type']);
    expect(item.loc).toEqual(items[i].loc);
    expect(item.input).toEqual(items[i].input);
    expect(typeof item.msg).toBe('string');
    expect(item.msg.length).toBeGreaterThan(10);
    expect(typeof item.type).toBe('string');
    expect(typeof item.ctx).toBe('object');
  });
}

/** A 405 with `Allow`, whose message says what the reference serves on `template` instead of `method`. */
export function expectMethodNotAllowed(res: Response, allow: string, method: string, template: string): void {
  expectJson(res, 405);
  expect(res.headers.allow).toBe(allow);
  expectErrorBody(res.body, 405, 'method_not_allowed');
  const methods = allow.split(', ');
  const list = methods.length > 1 ? `${methods.slice(0, -1).join(', ')} and ${methods.at(-1)}` : methods[0];
  expect(res.body.message).toBe(`The API reference serves only ${list} on ${template}, not ${method.toUpperCase()}.`);
}
