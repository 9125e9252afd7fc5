// A minimal JSON Schema (2020-12) evaluator for the keywords our exported schemas use, so tests can run the files without Ajv.
// It throws on any other keyword: a schema it cannot fully read must fail the test, not pass it.

type Schema = boolean | Record<string, unknown>;

const annotations = new Set(['$schema', '$id', 'title', 'description', 'format']); // format is an annotation by default in 2020-12
const handled = new Set([
  'type', 'const', 'enum', 'properties', 'required', 'additionalProperties', 'propertyNames', 'items', 'prefixItems',
  'minItems', 'maxItems', 'minLength', 'maxLength', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum',
  'pattern', 'allOf', 'anyOf', 'oneOf', 'not', 'if', 'then', 'else',
]);

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function matchesType(value: unknown, type: string): boolean {
  const actual = typeOf(value);
  return actual === type || (type === 'number' && actual === 'integer');
}

/** The failures of `value` against `schema`, as "path: keyword" strings; empty when it conforms. */
export function evaluateJsonSchema(schema: Schema, value: unknown, path = '$'): string[] {
  if (schema === true) return [];
  if (schema === false) return [`${path}: false schema`];
  const errors: string[] = [];
  const fail = (keyword: string) => errors.push(`${path}: ${keyword}`);
  for (const keyword of Object.keys(schema)) {
    if (!annotations.has(keyword) && !handled.has(keyword)) throw new Error(`unsupported JSON Schema keyword ${keyword} at ${path}`);
  }
  const s = schema;
  if (typeof s.type === 'string' && !matchesType(value, s.type)) return [`${path}: type ${s.type}`];
  if ('const' in s && JSON.stringify(s.const) !== JSON.stringify(value)) fail('const');
  if (Array.isArray(s.enum) && !s.enum.some((option) => JSON.stringify(option) === JSON.stringify(value))) fail('enum');

  if (typeof value === 'string') {
    if (typeof s.pattern === 'string' && !new RegExp(s.pattern, 'u').test(value)) fail('pattern');
    if (typeof s.minLength === 'number' && [...value].length < s.minLength) fail('minLength');
    if (typeof s.maxLength === 'number' && [...value].length > s.maxLength) fail('maxLength');
  }
  if (typeof value === 'number') {
    if (typeof s.minimum === 'number' && value < s.minimum) fail('minimum');
    if (typeof s.maximum === 'number' && value > s.maximum) fail('maximum');
    if (typeof s.exclusiveMinimum === 'number' && value <= s.exclusiveMinimum) fail('exclusiveMinimum');
    if (typeof s.exclusiveMaximum === 'number' && value >= s.exclusiveMaximum) fail('exclusiveMaximum');
  }
  if (Array.isArray(value)) {
    if (typeof s.minItems === 'number' && value.length < s.minItems) fail('minItems');
    if (typeof s.maxItems === 'number' && value.length > s.maxItems) fail('maxItems');
    const prefix = Array.isArray(s.prefixItems) ? (s.prefixItems as Schema[]) : [];
    value.forEach((item, index) => {
      const itemSchema = index < prefix.length ? prefix[index] : (s.items as Schema | undefined);
      if (itemSchema !== undefined) errors.push(...evaluateJsonSchema(itemSchema, item, `${path}[${index}]`));
    });
  }
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const record = value as Record<string, unknown>;
    const properties = (s.properties ?? {}) as Record<string, Schema>;
    for (const key of Array.isArray(s.required) ? (s.required as string[]) : []) if (!(key in record)) fail(`required ${key}`);
    for (const [key, item] of Object.entries(record)) {
      if (s.propertyNames !== undefined) errors.push(...evaluateJsonSchema(s.propertyNames as Schema, key, `${path}.${key}(name)`));
      const propertySchema = properties[key];
      if (propertySchema !== undefined) errors.push(...evaluateJsonSchema(propertySchema, item, `${path}.${key}`));
      else if (s.additionalProperties !== undefined) errors.push(...evaluateJsonSchema(s.additionalProperties as Schema, item, `${path}.${key}`));
    }
  }
  const passes = (sub: Schema) => evaluateJsonSchema(sub, value, path).length === 0;
  if (Array.isArray(s.allOf)) for (const sub of s.allOf as Schema[]) errors.push(...evaluateJsonSchema(sub, value, path));
  if (Array.isArray(s.anyOf) && !(s.anyOf as Schema[]).some(passes)) fail('anyOf');
  if (Array.isArray(s.oneOf) && (s.oneOf as Schema[]).filter(passes).length !== 1) fail('oneOf');
  if (s.not !== undefined && passes(s.not as Schema)) fail('not');
  if (s.if !== undefined) {
    const branch = passes(s.if as Schema) ? s.then : s.else;
    if (branch !== undefined) errors.push(...evaluateJsonSchema(branch as Schema, value, path));
  }
  return errors;
}
