// The package's API for test code: start a sandbox on a free port, or build the app in process.
export { createApp } from './app.js';
export { buildSandbox, type SandboxDeps } from './sandbox.js';
export { startSandbox, type RunningSandbox, type StartOptions } from './start.js';
export { defaultConfig, type SandboxConfig } from './config.js';
export { mintToken, type MintOptions } from './auth/mint-token.js';
export { WELL_KNOWN } from '../fixtures/well-known.js';
export { isLoopbackHost } from './admin/exposure.js';
export type { JournalEntry } from './journal/journal.js';
