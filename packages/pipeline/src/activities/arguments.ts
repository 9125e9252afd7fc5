// Activity arguments cross a process boundary as JSON: each activity checks its own against the schema, and a bad one
// fails the workflow at once (non-retryable) with the field and the fix, rather than being retried forever.
import { ApplicationFailure } from '@temporalio/activity';
import type { z } from 'zod';

export function parsed<T>(schema: z.ZodType<T>, input: unknown, activity: string): T {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  throw ApplicationFailure.create({
    type: 'InvalidActivityInput',
    message: `${activity} was called with an invalid argument: ${issue?.path.join('.') || '(root)'}: ${issue?.message ?? ''}; pass the object its schema in schemas/ describes`,
    nonRetryable: true,
  });
}

/** A failure no retry can fix, carrying the error's name and code as its type so callers can tell kinds apart. */
export function permanent(error: Error & { code: string }): ApplicationFailure {
  return ApplicationFailure.create({
    type: `${error.name}:${error.code}`,
    message: error.message,
    nonRetryable: true,
    cause: error,
  });
}
