// A setup file of every test file (vitest.config.ts): registered before the file's own hooks, so it
// runs after them (vitest runs after-hooks as a stack), once whatever used the folders has stopped.
import { afterAll } from 'vitest';
import { removeTempDirs } from './temp-dir.js';

afterAll(removeTempDirs);
