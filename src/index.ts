// The package's API for test code: start a sandbox on a free port, or build the app in process.

export { WELL_KNOWN } from '../fixtures/well-known.js';
export { isLoopbackHost } from './admin/exposure.js';
export { createApp } from './app.js';
export { type MintOptions, mintToken } from './auth/mint-token.js';
export { defaultConfig, type SandboxConfig } from './config.js';
export type { JournalEntry } from './journal/entry.js';
export { buildSandbox, type SandboxDeps } from './sandbox.js';
export { type RunningSandbox, type StartOptions, startSandbox } from './start.js';
