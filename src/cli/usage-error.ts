// A mistake in how the command was called: printed as one line, exit code 2 (like most CLIs).
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

export const USAGE_EXIT_CODE = 2;
