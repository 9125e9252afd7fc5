// TOML manifests (pyproject.toml) as data, for detection: a file that is not valid TOML reads as empty, as the tools
// that read it would refuse it too, and a missing or mistyped table as an empty one.
import { parse } from 'smol-toml';

export function readToml(text: string): Record<string, unknown> {
  try {
    return parse(text);
  } catch {
    return {};
  }
}

/** The table under `key`, empty where it is missing or not a table. */
export function table(parent: Readonly<Record<string, unknown>>, key: string): Record<string, unknown> {
  const value = parent[key];
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}
