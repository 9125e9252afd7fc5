// The code of the ProcessError a call throws, so tests assert codes rather than messages.
import { ProcessError } from '../../../grader/process/errors.js';

export function codeOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    return error instanceof ProcessError ? error.code : undefined;
  }
  return undefined;
}

export async function asyncCodeOf(run: () => Promise<unknown>): Promise<string | undefined> {
  try {
    await run();
  } catch (error) {
    return error instanceof ProcessError ? error.code : undefined;
  }
  return undefined;
}
