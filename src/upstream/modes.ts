// The upstream's modes, apart from the Upstream that acts on them: the CLI names and checks them
// without loading the HTTP client and the compare worker.
import type { SandboxConfig } from '../config.js';

/**
 * `compare`: the sandbox answers, the upstream is asked too and the answers compared; `record`: the
 * upstream answers, the sandbox records; `off`: the sandbox answers, nothing is sent anywhere.
 */
export type UpstreamMode = 'off' | 'compare' | 'record';

export const UPSTREAM_MODES: readonly UpstreamMode[] = ['off', 'record', 'compare'];

/** The mode a sandbox starts in: the record command's or --compare's, else off (--upstream alone). */
export function modeAtStart(config: Pick<SandboxConfig, 'record' | 'compare'>): UpstreamMode {
  return config.record ? 'record' : config.compare ? 'compare' : 'off';
}
