// Canonical JSON (RFC 8785, JCS): the one byte form of a JSON value that digests are computed over.
// Pure and free of Node built-ins, so Temporal workflow code may import it.

/**
 * Serializes a JSON value canonically: object keys sorted by UTF-16 code units, no whitespace, and strings and numbers
 * in ECMAScript's JSON.stringify form, which is exactly what RFC 8785 prescribes.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value === 'boolean' || typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new TypeError(`canonical JSON has no form for the number ${value}`);
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item)).join(',')}]`;
  if (typeof value === 'object') {
    const record = value as Record<string, unknown>;
    const members = Object.keys(record)
      .filter((key) => record[key] !== undefined)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key])}`);
    return `{${members.join(',')}}`;
  }
  throw new TypeError(`canonical JSON has no form for a ${typeof value}`);
}
