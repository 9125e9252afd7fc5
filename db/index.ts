// The db module: schema, connection (PGlite | PostgreSQL) and its error type.
export * from './connection.js';
export * from './errors.js';
export * as schema from './schema/index.js';
export type { JsonObject, JsonValue } from './json.js';
