// Maven Surefire's summary, the lines of its output a reader of the vitest output wants: one
// `Tests run: ...` line per test class and the total last (test/clients/java.test.ts and
// test/container/java-client.test.ts print them).
export function surefireSummary(output: string): string[] {
  return output
    .split('\n')
    .map((line) => line.replace(/^\[(INFO|ERROR|WARNING)\]\s*/, '').trim())
    .filter((line) => /^Tests run: \d+/.test(line));
}

/** The total line of a run in which every test ran and passed. */
export const ALL_PASSED = /^Tests run: [1-9]\d*, Failures: 0, Errors: 0, Skipped: 0$/;
