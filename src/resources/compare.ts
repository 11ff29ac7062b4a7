/** Plain code-unit order: RFC 3339 timestamps of one format and uuids sort correctly with it. */
export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
