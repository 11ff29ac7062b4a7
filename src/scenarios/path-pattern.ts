// Path patterns of scenarios (`match.path`): a request path where `*` matches any run of characters,
// as in the journal's path filter ("/buyers/*", "/reports/f5000000-*"). Two questions: does a
// request path match (at request time), and can any path of an operation's template match (when
// the scenario is compiled, so the operations it can apply to are known and listed).

/** A regular expression for the pattern: `*` any characters, everything else literally. */
export function pathPatternRegExp(pattern: string): RegExp {
  const parts = pattern.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${parts.join('.*')}$`);
}

const STAR = -1;
const PARAM = -2;

/**
 * Whether some path of the template (`{name}` being one or more characters other than '/') matches
 * the pattern: a walk over both at once, remembering the positions already tried.
 */
export function patternMatchesTemplate(pattern: string, template: string): boolean {
  const p: number[] = [];
  for (const ch of pattern) p.push(ch === '*' ? STAR : (ch.codePointAt(0) as number));
  const t: number[] = [];
  for (let i = 0; i < template.length; i++) {
    if (template[i] === '{') {
      const end = template.indexOf('}', i);
      if (end > i) {
        t.push(PARAM);
        i = end;
        continue;
      }
    }
    t.push(template.codePointAt(i) as number);
  }
  const seen = new Set<number>();
  // State: pattern index, template index, and whether the parameter at t[ti] has taken a character.
  const walk = (pi: number, ti: number, inParam: boolean): boolean => {
    const key = (pi * (t.length + 1) + ti) * 2 + (inParam ? 1 : 0);
    if (seen.has(key)) return false;
    seen.add(key);
    if (inParam && walk(pi, ti + 1, false)) return true; // the parameter ends here
    if (pi === p.length) return ti === t.length;
    if (p[pi] === STAR) {
      if (walk(pi + 1, ti, inParam)) return true; // the star ends here
      if (ti === t.length) return false;
      // The star takes one more character: a literal one, or one of the parameter's.
      return t[ti] === PARAM ? walk(pi, ti, true) : walk(pi, ti + 1, false);
    }
    if (ti === t.length) return false;
    if (t[ti] === PARAM) return p[pi] !== 0x2f && walk(pi + 1, ti, true); // a parameter holds no '/'
    return p[pi] === t[ti] && walk(pi + 1, ti + 1, false);
  };
  return walk(0, 0, false);
}
