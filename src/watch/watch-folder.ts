// Watches a folder with fs.watch and calls back once per burst of changes: editors write a file in
// several steps (truncate, write, rename), so events are gathered for `debounceMs` first.
import { type FSWatcher, watch } from 'node:fs';
import { join } from 'node:path';

export interface FolderWatcher {
  close(): void;
}

export interface WatchFolderOptions {
  debounceMs?: number;
  recursive?: boolean;
  /** Names (relative to the folder) worth a callback, e.g. only *.json. */
  filter?: (name: string) => boolean;
  onError?: (err: Error) => void;
}

/** Calls `onChange` with the changed files (absolute paths) after each quiet period. */
export function watchFolder(dir: string, onChange: (files: string[]) => void, options: WatchFolderOptions = {}): FolderWatcher {
  const debounceMs = options.debounceMs ?? 150;
  const pending = new Set<string>();
  let timer: NodeJS.Timeout | null = null;
  const fire = () => {
    timer = null;
    const files = [...pending].sort();
    pending.clear();
    onChange(files);
  };
  const watcher: FSWatcher = watch(dir, { recursive: options.recursive ?? false }, (_event, name) => {
    const file = name ? name.toString() : '';
    if (file && options.filter && !options.filter(file)) return;
    pending.add(file ? join(dir, file) : dir);
    if (timer) clearTimeout(timer);
    timer = setTimeout(fire, debounceMs);
  });
  watcher.on('error', (err) => options.onError?.(err));
  return {
    close() {
      if (timer) clearTimeout(timer);
      watcher.close();
    },
  };
}
