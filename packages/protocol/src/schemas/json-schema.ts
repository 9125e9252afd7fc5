// The JSON Schema (draft 2020-12) form of every ABP document kind, generated from the zod schemas, which stay the source of truth.
// Cross-field rules (sorted entries, seq order, interval containment…) do not fit JSON Schema; `abp validate` checks them.
import { z } from 'zod';
import { ADAPTERS_SCHEMA_ID, adaptersSchema } from './abp-adapters.js';
import { BASELINE_SCHEMA_ID, baselineSchema } from './abp-baseline.js';
import { DRAW_SCHEMA_ID, drawSchema } from './abp-draw.js';
import { REGISTRY_SCHEMA_ID, registrySchema } from './abp-registry.js';
import { RUN_SCHEMA_ID, runSchema } from './abp-run.js';
import { TASK_SCHEMA_ID, taskSchema } from './abp-task.js';
import { TRACE_SCHEMA_ID, traceEventSchema } from './abp-trace.js';
import { TRIAL_SCHEMA_ID, trialSchema } from './abp-trial.js';
import { TRUST_ROOT_SCHEMA_ID, trustRootSchema } from './abp-trust-root.js';
import { VERDICT_SCHEMA_ID, verdictSchema } from './abp-verdict.js';

// A URN rather than an invented web address: nothing is published yet, and a URL that does not resolve would mislead.
export const JSON_SCHEMA_ID_PREFIX = 'urn:abp:schema:';

export interface JsonSchemaKind {
  /** The ABP kind, e.g. "abp-task/v1". */
  id: string;
  title: string;
  schema: z.ZodType;
  /** Constraints zod cannot express in JSON Schema but JSON Schema can, merged into the generated root. */
  extra?: Record<string, unknown>;
}

export const jsonSchemaKinds: readonly JsonSchemaKind[] = [
  {
    id: TASK_SCHEMA_ID,
    title: 'ABP task manifest (abp-task/v1)',
    schema: taskSchema,
    // github-issue tasks carry their golden block; fixtures carry none (spec §5).
    extra: {
      if: {
        properties: { source: { properties: { kind: { const: 'fixture' } }, required: ['kind'] } },
        required: ['source'],
      },
      then: { not: { required: ['golden'] } },
      else: { required: ['golden'] },
    },
  },
  {
    id: TRACE_SCHEMA_ID,
    title: 'ABP trace event (abp-trace/v1), one per line of a JSONL trace',
    schema: traceEventSchema,
  },
  { id: RUN_SCHEMA_ID, title: 'ABP run configuration (abp-run/v1)', schema: runSchema },
  { id: VERDICT_SCHEMA_ID, title: 'ABP verdict (abp-verdict/v1)', schema: verdictSchema },
  { id: REGISTRY_SCHEMA_ID, title: 'ABP registry version (abp-registry/v1)', schema: registrySchema },
  { id: DRAW_SCHEMA_ID, title: 'ABP draw (abp-draw/v1)', schema: drawSchema },
  { id: ADAPTERS_SCHEMA_ID, title: 'abp adapters file (abp-adapters/v1)', schema: adaptersSchema },
  { id: TRIAL_SCHEMA_ID, title: 'abp trial envelope (abp-trial/v1)', schema: trialSchema },
  { id: BASELINE_SCHEMA_ID, title: 'abp gate baseline (abp-baseline/v1)', schema: baselineSchema },
  { id: TRUST_ROOT_SCHEMA_ID, title: 'abp trust root (abp-trust-root/v1)', schema: trustRootSchema },
];

/** "abp-task/v1" -> "abp-task-v1.schema.json". */
export function jsonSchemaFileName(kindId: string): string {
  return `${kindId.replace(/\//g, '-')}.schema.json`;
}

export function buildJsonSchema(kind: JsonSchemaKind): Record<string, unknown> {
  // Input side: a document on disk is what gets validated. Throwing on unrepresentable types keeps gaps from passing silently.
  const generated = z.toJSONSchema(kind.schema, {
    target: 'draft-2020-12',
    io: 'input',
    unrepresentable: 'throw',
  }) as Record<string, unknown>;
  const { $schema, description, ...rest } = generated;
  return {
    $schema,
    $id: `${JSON_SCHEMA_ID_PREFIX}${kind.id.replace(/\//g, ':')}`,
    title: kind.title,
    ...(description === undefined ? {} : { description }),
    ...rest,
    ...kind.extra,
  };
}

/** Every JSON Schema file with its exact text: 2-space indent and a trailing newline, so regeneration is byte-stable. */
export function renderJsonSchemaFiles(): Array<{ fileName: string; text: string }> {
  return jsonSchemaKinds.map((kind) => ({
    fileName: jsonSchemaFileName(kind.id),
    text: `${JSON.stringify(buildJsonSchema(kind), null, 2)}\n`,
  }));
}
