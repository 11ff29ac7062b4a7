// The run-time scenario definitions the Scenarios page's form writes for the common cases, as the
// control API takes them (POST /_sandbox/scenarios): the same shorthands a tester would type, so
// the JSON the page shows is the format to learn. Pure (no DOM): the page's script and the tests
// use it. Values come as the form's text; numbers that are not whole numbers are sent as typed, so
// the API's 400 names the field.

export type CommonCase = 'nth-call' | 'delay' | 'report-executions-fail';

export const COMMON_CASES: ReadonlyArray<[kind: CommonCase, label: string]> = [
  ['nth-call', 'Answer a status on the Nth call of an operation'],
  ['delay', 'Delay every call of an operation'],
  ['report-executions-fail', 'Fail every report execution'],
];

/** The form's fields, as text. */
export interface CommonCaseFields {
  kind: string;
  operation: string;
  status: string;
  call: string;
  delay_ms: string;
  /** Empty: named after what it does. */
  name: string;
  /** Empty: said from what it does. */
  description: string;
}

/** A whole number typed as text becomes a number; anything else stays as typed (the API says what is wrong with it). */
function whole(text: string): number | string {
  const trimmed = text.trim();
  return /^-?\d{1,15}$/.test(trimmed) ? Number(trimmed) : trimmed;
}

/** 1st, 2nd, 3rd, 4th, 11th, 21st... */
export function ordinal(n: number | string): string {
  if (typeof n !== 'number') return `${n}th`;
  const tens = n % 100;
  const suffix = tens >= 11 && tens <= 13 ? 'th' : (['th', 'st', 'nd', 'rd'][n % 10] ?? 'th');
  return `${n}${suffix}`;
}

/** A scenario name from a text: lower case, letters, digits, '.', '_' and '-', at most 64 characters (the schema's pattern). */
function nameFrom(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/^[^a-z0-9]+/, '')
    .slice(0, 64)
    .replace(/-+$/, '');
}

/** The definition the form's fields describe, in the order a person would write it. */
export function commonDefinition(fields: CommonCaseFields): Record<string, unknown> {
  const operation = fields.operation.trim();
  const named = (generated: string, said: string, rest: Record<string, unknown>) => ({
    name: fields.name.trim() || nameFrom(generated),
    description: fields.description.trim() || said,
    ...rest,
  });
  if (fields.kind === 'delay') {
    const delay = whole(fields.delay_ms);
    return named(`${operation}-delay-${delay}ms`, `${operation} answers normally, ${delay} ms late.`, {
      operations: [operation],
      delay_ms: delay,
      pass: true,
    });
  }
  if (fields.kind === 'report-executions-fail') {
    return named('report-executions-fail', 'Report executions created while it is active go pending, dispatched, processing, then failed.', {
      report_execution: { path: ['pending', 'dispatched', 'processing', 'failed'] },
    });
  }
  const status = whole(fields.status);
  const call = whole(fields.call);
  return named(`${operation}-call-${call}-${status}`, `The ${ordinal(call)} call of ${operation} answers ${status}; the others run normally.`, {
    operations: [operation],
    calls: [call],
    respond: { status },
  });
}
