// The code of the ExecutionError a call throws, so tests assert codes rather than messages.
import { ExecutionError } from '../../src/execution/errors.js';

export function codeOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    return error instanceof ExecutionError ? error.code : undefined;
  }
  return undefined;
}

export async function asyncCodeOf(run: () => Promise<unknown>): Promise<string | undefined> {
  try {
    await run();
  } catch (error) {
    return error instanceof ExecutionError ? error.code : undefined;
  }
  return undefined;
}
