// The one error class of the db module, and the SQLSTATE helpers callers use to tell a
// constraint violation (a domain fact, e.g. "already opted out") from a failure.
import { AbpError } from '@abp/protocol/errors';

export type DatabaseErrorCode = 'invalid-url' | 'connect-failed' | 'migrate-failed';

export class DatabaseError extends AbpError<DatabaseErrorCode> {}

/** SQLSTATE codes abp code reacts to. `appendOnlyViolation` is raised by migration 0001's trigger. */
export const SqlState = {
  notNullViolation: '23502',
  foreignKeyViolation: '23503',
  uniqueViolation: '23505',
  checkViolation: '23514',
  appendOnlyViolation: 'ABP01',
} as const;

/**
 * The SQLSTATE of a failed query, found along the `cause` chain (drizzle wraps the driver's
 * error). Both drivers' errors carry `code` (the SQLSTATE) and `severity`; Node's system
 * errors (`ECONNREFUSED`) have no severity and are not mistaken for one.
 */
export function sqlStateOf(error: unknown): string | undefined {
  const seen = new Set<unknown>();
  for (let current = error; typeof current === 'object' && current !== null && !seen.has(current);) {
    seen.add(current);
    if (
      'code' in current &&
      'severity' in current &&
      typeof current.code === 'string' &&
      /^[0-9A-Z]{5}$/.test(current.code)
    ) {
      return current.code;
    }
    current = 'cause' in current ? current.cause : undefined;
  }
  return undefined;
}

/** A connection URL safe to print: the password replaced by `***`. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '***';
    return parsed.toString();
  } catch {
    return '<unparseable URL>';
  }
}

/** The innermost message along the `cause` chain, for one-line error reports. */
export function rootMessage(error: unknown): string {
  let current = error;
  while (current instanceof Error && current.cause instanceof Error) current = current.cause;
  return current instanceof Error ? current.message : String(current);
}
