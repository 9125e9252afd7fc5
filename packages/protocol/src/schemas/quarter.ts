// Which registry version a moment falls in. Kept free of zod: workflows import it, and their bundle stays small.

/** The registry version of the quarter holding `at` (UTC): 2026-10-01T00:00:00Z and 2026-12-31T23:59:59Z are both `abp-registry/2026Q4`. */
export function quarterVersion(at: Date): string {
  return `abp-registry/${at.getUTCFullYear()}Q${Math.floor(at.getUTCMonth() / 3) + 1}`;
}
