// Validates simulator responses against GitHub's own REST description (vendored, gzipped): the
// OpenAPI 3.0 `nullable` is turned into JSON-Schema type unions, `#/components/...` references
// resolve inside the description, and Ajv checks a body against an operation's response schema.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { Ajv } from 'ajv';
import type { ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';

type JsonObject = Record<string, unknown>;

const descriptionPath = fileURLToPath(new URL('../fixtures/openapi/api.github.com.json.gz', import.meta.url));
const documentId = 'https://simulator.abp/github-openapi.json';

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** OpenAPI 3.0's `nullable: true` as JSON Schema: a `null` member of the type (or an anyOf). */
export function convertNullable(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(convertNullable);
  if (!isObject(node)) return node;
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(node)) {
    // Only the boolean is the keyword: a property that happens to be named `nullable` is kept.
    if (key === 'nullable' && typeof value === 'boolean') continue;
    // Examples are data, not schemas: leave them as they are.
    out[key] = key === 'example' || key === 'examples' ? value : convertNullable(value);
  }
  if (node['nullable'] !== true) return out;
  if (typeof out['type'] === 'string') {
    out['type'] = [out['type'], 'null'];
    if (Array.isArray(out['enum']) && !out['enum'].includes(null)) out['enum'] = [...(out['enum'] as unknown[]), null];
    return out;
  }
  return { anyOf: [out, { type: 'null' }] };
}

/** Points a schema's local `#/components/...` references at the registered description. */
function anchorRefs(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(anchorRefs);
  if (!isObject(node)) return node;
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(node)) {
    out[key] =
      key === '$ref' && typeof value === 'string' && value.startsWith('#/')
        ? `${documentId}${value}`
        : anchorRefs(value);
  }
  return out;
}

export interface GitHubOpenApi {
  /** The JSON schema for an operation's response body, e.g. ('/repos/{owner}/{repo}', 'get', 200). */
  responseSchema(path: string, method: string, status: number): JsonObject;
  /** A compiled validator for that response. */
  responseValidator(path: string, method: string, status: number): ValidateFunction;
  /** Validation errors of `body` as readable lines; empty when it conforms. */
  check(path: string, method: string, status: number, body: unknown): string[];
}

export function loadGitHubOpenApi(): GitHubOpenApi {
  const description = convertNullable(
    JSON.parse(gunzipSync(readFileSync(descriptionPath)).toString('utf8')),
  ) as JsonObject;
  const components = description['components'] as JsonObject;
  const paths = description['paths'] as Record<string, Record<string, JsonObject>>;
  const ajv = new Ajv({ strict: false, allErrors: true, validateSchema: false });
  addFormats.default(ajv);
  ajv.addSchema({ $id: documentId, components });
  const compiled = new Map<string, ValidateFunction>();

  const resolveResponse = (response: JsonObject): JsonObject => {
    const ref = response['$ref'];
    if (typeof ref !== 'string') return response;
    const name = ref.replace('#/components/responses/', '');
    return (components['responses'] as Record<string, JsonObject>)[name] ?? {};
  };

  const responseSchema = (path: string, method: string, status: number): JsonObject => {
    const operation = paths[path]?.[method.toLowerCase()];
    if (!operation) throw new Error(`The OpenAPI description has no operation ${method.toUpperCase()} ${path}`);
    const responses = operation['responses'] as Record<string, JsonObject>;
    const declared = responses[String(status)];
    if (!declared) throw new Error(`${method.toUpperCase()} ${path} declares no ${status} response`);
    const content = resolveResponse(declared)['content'] as Record<string, { schema: JsonObject }> | undefined;
    const schema = content?.['application/json']?.schema;
    if (!schema) throw new Error(`${method.toUpperCase()} ${path} ${status} has no JSON body`);
    return schema;
  };

  const responseValidator = (path: string, method: string, status: number): ValidateFunction => {
    const key = `${method.toLowerCase()} ${path} ${status}`;
    let validate = compiled.get(key);
    if (!validate) {
      validate = ajv.compile(anchorRefs(responseSchema(path, method, status)) as JsonObject);
      compiled.set(key, validate);
    }
    return validate;
  };

  return {
    responseSchema,
    responseValidator,
    check(path, method, status, body) {
      const validate = responseValidator(path, method, status);
      if (validate(body)) return [];
      return (validate.errors ?? []).map(
        (error) => `${error.instancePath || '/'} ${error.message ?? 'is invalid'} ${JSON.stringify(error.params)}`,
      );
    },
  };
}
