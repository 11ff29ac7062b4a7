// The scenarios a namespace defines at run time (POST/PUT /_sandbox/scenarios, a snapshot's or a
// state's list): checked and compiled like a scenario file, bounded in number and size, and kept by
// name. What a change means for sequences and activations is the scenario state's business (state.ts).
import type { SpecIndex } from '../spec/operations.js';
import { compileScenario, type Problem } from './compile-scenario.js';
import type { Scenario } from './types.js';

/** A definition refused: every problem with its pointer into what was sent. */
export class DefinitionError extends Error {
  constructor(
    readonly problems: Problem[],
    readonly kind: 'invalid' | 'exists' | 'limit' = 'invalid',
  ) {
    super(problems.map((p) => `${p.pointer || '/'}: ${p.message}`).join('; '));
  }
}

/** Most scenarios one namespace may define (each is kept in memory with its namespace). */
export const MAX_DEFINED_SCENARIOS = 100;
/** Largest definition kept (as JSON): override bodies and the like, not data sets. */
const MAX_DEFINITION_CHARS = 256 * 1024;
/** Names the control API's own routes use under /_sandbox/scenarios/. */
const RESERVED_NAMES = new Set(['active']);

export class Definitions {
  private readonly byName = new Map<string, Scenario>();

  constructor(private readonly spec: SpecIndex) {}

  get size(): number {
    return this.byName.size;
  }

  get(name: string): Scenario | undefined {
    return this.byName.get(name);
  }

  names(): IterableIterator<string> {
    return this.byName.keys();
  }

  /** By name. */
  list(): Scenario[] {
    return [...this.byName.values()].sort((a, b) => (a.name < b.name ? -1 : 1));
  }

  /** Checks, compiles and keeps a definition; `replace`: it may replace one of the same name (else a DefinitionError 'exists'). */
  define(definition: unknown, replace: boolean): { scenario: Scenario; created: boolean } {
    const scenario = compileDefinition(definition, this.spec);
    const created = !this.byName.has(scenario.name);
    if (!created && !replace) {
      throw new DefinitionError(
        [{ pointer: '/name', message: `'${scenario.name}' is already defined in this namespace; PUT /_sandbox/scenarios/${scenario.name} replaces it` }],
        'exists',
      );
    }
    if (created && this.byName.size >= MAX_DEFINED_SCENARIOS) {
      throw new DefinitionError(
        [{ pointer: '', message: `a namespace defines at most ${MAX_DEFINED_SCENARIOS} scenarios; delete some (DELETE /_sandbox/scenarios/{name})` }],
        'limit',
      );
    }
    this.byName.set(scenario.name, scenario);
    return { scenario, created };
  }

  delete(name: string): boolean {
    return this.byName.delete(name);
  }

  clear(): void {
    this.byName.clear();
  }

  /**
   * Checks a whole list (a snapshot's or a state's) and returns the scenarios it defines, by name,
   * for replaceAll(); a DefinitionError points at /<index>/... of the list.
   */
  check(definitions: readonly unknown[]): Map<string, Scenario> {
    const problems: Problem[] = [];
    const scenarios = new Map<string, Scenario>();
    definitions.forEach((definition, i) => {
      try {
        const scenario = compileDefinition(definition, this.spec);
        if (scenarios.has(scenario.name)) problems.push({ pointer: `/${i}/name`, message: `'${scenario.name}' is defined twice in the list` });
        scenarios.set(scenario.name, scenario);
      } catch (err) {
        if (!(err instanceof DefinitionError)) throw err;
        problems.push(...err.problems.map((p) => ({ pointer: `/${i}${p.pointer}`, message: p.message })));
      }
    });
    if (definitions.length > MAX_DEFINED_SCENARIOS) problems.push({ pointer: '', message: `a namespace defines at most ${MAX_DEFINED_SCENARIOS} scenarios` });
    if (problems.length) throw new DefinitionError(problems);
    return scenarios;
  }

  /** The scenarios check() gave, in place of these. */
  replaceAll(scenarios: Map<string, Scenario>): void {
    this.byName.clear();
    for (const [name, scenario] of scenarios) this.byName.set(name, scenario);
  }
}

/** A definition sent to the control API (or kept in an export), compiled; a DefinitionError lists its problems. */
function compileDefinition(definition: unknown, spec: SpecIndex): Scenario {
  const size = JSON.stringify(definition)?.length ?? 0;
  if (size > MAX_DEFINITION_CHARS) {
    throw new DefinitionError([{ pointer: '', message: `the definition is ${size} characters of JSON; a scenario takes at most ${MAX_DEFINITION_CHARS}` }]);
  }
  const { scenario, problems } = compileScenario(definition, { spec, source: 'defined', file: null });
  if (scenario && RESERVED_NAMES.has(scenario.name)) {
    problems.push({
      pointer: '/name',
      message: `'${scenario.name}' names a route of the control API (/_sandbox/scenarios/${scenario.name}); choose another name`,
    });
  }
  if (!scenario || problems.length) throw new DefinitionError(problems);
  return scenario;
}
