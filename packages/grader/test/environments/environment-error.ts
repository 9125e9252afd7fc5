// The code of the EnvironmentError a promise rejects with, so tests assert codes rather than messages.
import { EnvironmentError } from '../../src/environments/errors.js';

export async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof EnvironmentError) return error.code;
    throw error;
  }
  throw new Error('expected the promise to fail with an EnvironmentError');
}
