// The code of the SigningError a promise rejects with; fails the test when it resolves or rejects with anything else.
import { expect } from 'vitest';
import { SigningError } from '@abp/protocol/signing/errors';

export async function codeOf(promise: Promise<unknown>): Promise<string> {
  const error: unknown = await promise.then(
    () => null,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(SigningError);
  return (error as SigningError).code;
}
