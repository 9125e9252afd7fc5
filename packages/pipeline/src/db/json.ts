// JSON shapes stored in jsonb columns. The documents themselves are validated by the zod
// schemas in schemas/ at the boundary; the database only promises "valid JSON of this kind".
export type JsonPrimitive = string | number | boolean | null;
export type JsonValue = JsonPrimitive | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };
