// The code of the SigningError a promise rejects with; fails the test when it resolves or rejects with anything else.
import { expect } from 'vitest';
import { SigningError } from '../../signing/errors.js';

export async function codeOf(promise: Promise<unknown>): Promise<string> {
  const error: unknown = await promise.then(
    () => null,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(SigningError);
  return (error as SigningError).code;
}
