// A YAML text read as the JSON values it stands for, its problems said as fixes: where (line,
// column) and what to change, without the yaml library's own advice (written for programmers
// calling it, such as "please use YAML.parseAllDocuments()"). Tags beyond JSON's types (!!set,
// !!binary, !!timestamp, !custom) are refused: as JSON they would silently become {} or a string.
import { isNode, LineCounter, parseDocument, visit } from 'yaml';

export interface YamlProblem {
  line: number;
  column: number;
  /** What is wrong and how to fix it, without the position. */
  message: string;
}

/** The tags that say what JSON can hold (core schema), harmless when written out. */
const JSON_TAGS = new Set(['str', 'int', 'float', 'bool', 'null', 'map', 'seq'].map((t) => `tag:yaml.org,2002:${t}`));

/** What to do, by the yaml library's error code; other codes keep the library's sentence. */
const FIXES: Record<string, string> = {
  MULTIPLE_DOCS: "a second YAML document starts here ('---' or '...'): give one document",
  BAD_INDENT: 'the indentation is off: indent the items of one mapping or sequence alike, with spaces',
  TAB_AS_INDENT: 'a tab indents this line: indent with spaces',
  BLOCK_AS_IMPLICIT_KEY: 'a value holding ": " is read as a nested mapping: quote the value, or write the mapping on the next lines, indented',
  DUPLICATE_KEY: 'a key is given twice in one mapping: keep one',
  BAD_ALIAS: 'an alias (*name) names no anchor (&name) defined before it: define the anchor first, or write the value',
};

/** The parsed value, or the first problem found. Aliases are bounded, so a small text cannot expand without end. */
export function readYamlText(text: string): { value: unknown } | { problem: YamlProblem } {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines });
  const error = doc.errors[0];
  if (error) {
    const at = error.linePos?.[0] ?? { line: 1, col: 1 };
    return { problem: { line: at.line, column: at.col, message: FIXES[error.code] ?? libraryMessage(error.message) } };
  }
  let tagged: YamlProblem | null = null;
  visit(doc, (_key, node) => {
    if (!isNode(node) || !node.tag || JSON_TAGS.has(node.tag)) return undefined;
    const tag = node.tag.replace(/^tag:yaml\.org,2002:/, '!!');
    // The node's range starts at its value: the tag is written just before it.
    const valueAt = node.range?.[0] ?? 0;
    const tagAt = text.lastIndexOf(tag, valueAt);
    const at = lines.linePos(tagAt >= 0 ? tagAt : valueAt);
    tagged = { line: at.line, column: at.col, message: `the tag ${tag} has no JSON equivalent: write a plain mapping, sequence or scalar instead` };
    return visit.BREAK;
  });
  if (tagged) return { problem: tagged };
  try {
    return { value: doc.toJS({ maxAliasCount: 100 }) };
  } catch (err) {
    return { problem: { line: 1, column: 1, message: libraryMessage((err as Error).message) } };
  }
}

/** The library's sentence without its position and excerpt (given apart) and without advice to programmers. */
function libraryMessage(message: string): string {
  return message
    .split('\n')[0]
    .replace(/ at line \d+, column \d+:?$/, '')
    .replace(/;? ?please use [^.;]*/i, '')
    .replace(/[.:;]\s*$/, '');
}

/** "line 4, column 26: what to fix". */
export function yamlProblemText(problem: YamlProblem): string {
  return `line ${problem.line}, column ${problem.column}: ${problem.message}`;
}
