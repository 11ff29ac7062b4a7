// The import graph of src/ reads top to bottom: each folder imports only from the layers below it
// (docs/architecture.md's code map draws the same picture), and no file imports itself through others.
// Type-only imports count: a reader follows them just the same.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/** Top first. A folder (or top-level file, without .ts) imports only from the layers below its own, never from another folder of its layer. */
const LAYERS: string[][] = [
  ['cli', 'index'], //                    the command and the package entry
  ['start'], //                           listening on a port
  ['tls'], //                             HTTPS: the sandbox CA, certificates, the secure server
  ['app', 'watch'], //                    the request flow; hot reload
  ['sandbox'], //                         boot: builds what createApp needs
  ['cluster'], //                         a shared sandbox: leases, state in Redis, moving namespaces between nodes
  ['hosted'], //                          the pages a buyer's browser opens (approval, completion)
  ['console'], //                         the console's pages, read through the control API's handlers
  ['admin', 'docs'], //                   control surfaces
  ['webhooks'], //                        events from changes, signing, the delivery queue
  ['scenarios'], //                       test behaviour steered per request
  ['upstream'], //                        the real service: record and compare (--upstream)
  ['resources'], //                       the API's handlers
  ['auth', 'journal', 'logging'], //      pipeline steps of any document
  ['http'], //                            pipeline, call, dispatch, answers
  ['spec'], //                            the OpenAPI documents
  ['namespace'], //                       one home per namespace
  ['store'], //                           collections, persistence
  ['errors', 'clock', 'config'], //       leaves
];

const root = resolve(__dirname, '../../src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(name) ? [path] : [];
  });
}

/** The files of src/ each file imports (static, dynamic, type-only and side-effect imports, and re-exports). */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(root)) {
    const text = readFileSync(file, 'utf8');
    const targets: string[] = [];
    const imports = /(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+'(\.[^']+)'|import\(\s*'(\.[^']+)'\s*\)|(?:^|\n)\s*import\s*'(\.[^']+)'/g;
    for (const match of text.matchAll(imports)) {
      const target = resolve(dirname(file), (match[1] ?? match[2] ?? match[3]).replace(/\.js$/, '.ts'));
      if (target.startsWith(root)) targets.push(statSync(target, { throwIfNoEntry: false }) ? target : target.replace(/\.ts$/, '.tsx'));
    }
    graph.set(file, targets);
  }
  return graph;
}

/** The top-level folder of a file of src/, or its name without extension for a top-level file. */
const areaOf = (file: string) =>
  relative(root, file)
    .split('/')[0]
    .replace(/\.tsx?$/, '');

describe('the import graph of src/', () => {
  const graph = importGraph();
  const layerOf = new Map(LAYERS.flatMap((areas, depth) => areas.map((area) => [area, depth] as const)));

  it('places every folder and top-level file in a layer', () => {
    const areas = new Set([...graph.keys()].map(areaOf));
    expect([...areas].filter((area) => !layerOf.has(area)).sort()).toEqual([]);
  });

  it('imports only downward between folders', () => {
    const upward: string[] = [];
    for (const [file, targets] of graph) {
      for (const target of targets) {
        const [from, to] = [areaOf(file), areaOf(target)];
        if (from !== to && (layerOf.get(to) as number) <= (layerOf.get(from) as number)) upward.push(`${relative(root, file)} -> ${relative(root, target)}`);
      }
    }
    expect(upward).toEqual([]);
  });

  it('has no cycle between files', () => {
    const cycles: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const path: string[] = [];
    const visit = (file: string) => {
      state.set(file, 'open');
      path.push(file);
      for (const target of graph.get(file) ?? []) {
        if (state.get(target) === 'open')
          cycles.push(
            path
              .slice(path.indexOf(target))
              .concat(target)
              .map((f) => relative(root, f))
              .join(' -> '),
          );
        else if (!state.has(target)) visit(target);
      }
      path.pop();
      state.set(file, 'done');
    };
    for (const file of graph.keys()) if (!state.has(file)) visit(file);
    expect(cycles).toEqual([]);
  });
});
