// Checks webhook payloads against GitHub's own schemas: the `x-webhooks` section of the vendored
// REST description, each event-action's request body, with `#/components/...` resolved inside it.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { Ajv } from 'ajv';
import type { ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { convertNullable } from '../rest/openapi.js';

type JsonObject = Record<string, unknown>;

const descriptionPath = fileURLToPath(new URL('../fixtures/openapi/api.github.com.json.gz', import.meta.url));
const documentId = 'https://simulator.abp/github-openapi-webhooks.json';

function anchorRefs(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(anchorRefs);
  if (typeof node !== 'object' || node === null) return node;
  return Object.fromEntries(
    Object.entries(node).map(([key, value]) => [
      key,
      key === '$ref' && typeof value === 'string' && value.startsWith('#/')
        ? `${documentId}${value}`
        : anchorRefs(value),
    ]),
  );
}

export interface WebhookSchemas {
  /** Validation errors of a payload for `event.action` (e.g. `pull_request`, `closed`); empty when it conforms. */
  check(event: string, action: string, payload: unknown): string[];
  /** The headers GitHub documents for that event's delivery (lower-cased). */
  documentedHeaders(event: string, action: string): string[];
}

export function loadWebhookSchemas(): WebhookSchemas {
  const description = convertNullable(
    JSON.parse(gunzipSync(readFileSync(descriptionPath)).toString('utf8')),
  ) as JsonObject;
  const webhooks = description['x-webhooks'] as Record<string, { post: JsonObject }>;
  const ajv = new Ajv({ strict: false, allErrors: true, validateSchema: false });
  addFormats.default(ajv);
  ajv.addSchema({ $id: documentId, components: description['components'] });
  const compiled = new Map<string, ValidateFunction>();

  const operation = (event: string, action: string): JsonObject => {
    // x-webhooks keys are kebab-case: `pull-request-closed`, `check-run-completed`, `issues-closed`.
    const key = `${event.replaceAll('_', '-')}-${action}`;
    const post = webhooks[key]?.post;
    if (!post) throw new Error(`GitHub's description has no webhook ${key}`);
    return post;
  };

  return {
    check(event, action, payload) {
      const key = `${event}.${action}`;
      let validate = compiled.get(key);
      if (!validate) {
        const body = operation(event, action)['requestBody'] as { content: Record<string, { schema: JsonObject }> };
        const schema = body.content['application/json']?.schema;
        if (!schema) throw new Error(`webhook ${key} has no JSON body`);
        validate = ajv.compile(anchorRefs(schema) as JsonObject);
        compiled.set(key, validate);
      }
      if (validate(payload)) return [];
      return (validate.errors ?? []).map(
        (error) => `${error.instancePath || '/'} ${error.message ?? 'is invalid'} ${JSON.stringify(error.params)}`,
      );
    },
    documentedHeaders(event, action) {
      const parameters = operation(event, action)['parameters'] as { name: string; in: string }[];
      return parameters
        .filter((parameter) => parameter.in === 'header')
        .map((parameter) => parameter.name.toLowerCase());
    },
  };
}
