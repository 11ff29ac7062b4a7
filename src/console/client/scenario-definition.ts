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

/** The most calls a definition names (the schema's maxItems). */
const MAX_CALLS = 100;

/**
 * The calls "On call number" names: a number, or a list and ranges such as `1,2` or `3-5, 8`
 * (commas or spaces between), in order, each once; or, as a string, what to write instead.
 */
export function parseCalls(text: string): number[] | string {
  const parts = text.split(/[\s,]+/).filter(Boolean);
  if (parts.length === 0) return 'Give a call number, such as 2, or a list and ranges: 1,2 or 3-5.';
  const calls = new Set<number>();
  for (const part of parts) {
    const range = /^(\d{1,7})(?:-(\d{1,7}))?$/.exec(part);
    if (!range) return `'${part.slice(0, 20)}' is not a call number or a range: write 2, 1,2 or 3-5.`;
    const from = Number(range[1]);
    const to = range[2] === undefined ? from : Number(range[2]);
    if (from < 1 || to > 1_000_000) return `Calls are numbered from 1 to 1000000: '${part}' is outside.`;
    if (to < from) return `'${part}' runs backwards: write the smaller number first, ${to}-${from}.`;
    for (let n = from; n <= to && calls.size <= MAX_CALLS; n++) calls.add(n);
    if (calls.size > MAX_CALLS) return `At most ${MAX_CALLS} calls: for more, write a definition with after and times.`;
  }
  return [...calls].sort((a, b) => a - b);
}

/** Calls said as runs of three or more: [1, 2, 3, 5, 6] is "1st to 3rd, 5th and 6th". */
function callsText(calls: number[]): string {
  const runs: string[] = [];
  for (let i = 0; i < calls.length; i++) {
    let end = i;
    while (end + 1 < calls.length && calls[end + 1] === calls[end] + 1) end++;
    if (end >= i + 2) runs.push(`${ordinal(calls[i])} to ${ordinal(calls[end])}`);
    else for (let n = i; n <= end; n++) runs.push(ordinal(calls[n]));
    i = end;
  }
  return runs.length === 1 ? runs[0] : `${runs.slice(0, -1).join(', ')} and ${runs[runs.length - 1]}`;
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
  const calls = parseCalls(fields.call);
  if (typeof calls === 'string' || calls.length === 1) {
    // One call (or text the page refuses before sending: shown as typed).
    const call = typeof calls === 'string' ? fields.call.trim() : calls[0];
    return named(`${operation}-call-${call}-${status}`, `The ${ordinal(call)} call of ${operation} answers ${status}; the others run normally.`, {
      operations: [operation],
      calls: [call],
      respond: { status },
    });
  }
  return named(`${operation}-calls-${calls.join('-')}-${status}`, `The ${callsText(calls)} calls of ${operation} answer ${status}; the others run normally.`, {
    operations: [operation],
    calls,
    respond: { status },
  });
}
