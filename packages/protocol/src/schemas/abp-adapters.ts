// The abp-adapters/v1 file: how the grader invokes each engine of a run as a bounded command (harness principles),
// what the engine declares about itself, and the execution policy the operator acknowledges.
import { z } from 'zod';
import { describeValue, documentId, duplicateIndices, modelId, positiveInt } from './primitives.js';

export const ADAPTERS_SCHEMA_ID = 'abp-adapters/v1';

/** Hard cap of every process the grader starts (harness spec: "every process timeout (at 30 minutes)"). */
export const MAX_PROCESS_SECONDS = 1800;

export const executionPolicies = {
  'trusted-local': 'an acknowledgement, not a sandbox: adapters run as the current user with its files and network',
  sandboxed:
    "each trial runs under bubblewrap: no network but the adapter's egress allow-list, the host read-only, only the workspace and state writable",
} as const;
export type ExecutionPolicy = keyof typeof executionPolicies;

const envName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, {
  error: (issue) => `must be an environment variable name, got ${describeValue(issue.input)}`,
});
const seconds = (max: number) => positiveInt.max(max, `must be at most ${max} seconds`);
const argv = z
  .array(z.string().min(1, 'arguments must not be empty'))
  .min(1, 'must name the program to run, e.g. ["my-engine", "--prompt-file", "{promptFile}"]');

/** The name a sandboxed engine reaches the grader's own machine by (its loopback), for a model served there. */
export const HOST_LOOPBACK_NAME = 'host.abp.internal';

const egressRule = z
  .strictObject({
    host: z.string().regex(/^(\*\.)?[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/, {
      error: (issue) =>
        `must be a lower-case host name such as "api.anthropic.com", or "*.example.com" for every name under it, got ${describeValue(issue.input)}`,
    }),
    ports: z
      .array(z.int().min(1).max(65535, 'must be a TCP port (1 to 65535)'))
      .min(1, 'must list at least one port, e.g. [443]')
      .default([443]),
  })
  .describe('A host (or every name under a domain) the engine may connect to, on the listed ports.');

const traceSource = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('native') }).describe('The engine writes abp-trace/v1 JSONL to {traceFile}.'),
  z
    .strictObject({
      kind: z.literal('sidecar'),
      translator: z.string().min(1).describe('A translator id known to the grader, e.g. "claude-code-stream-json".'),
      from: z
        .union([z.literal('stdout'), z.literal('traceFile')])
        .describe("Where the engine's native log is: its stdout, or the file at {traceFile}."),
    })
    .describe("A sidecar translator turns the engine's native log into ABP events (spec §6)."),
  z.strictObject({ kind: z.literal('none') }).describe('No trace: the run can claim ABP-core, not ABP-traces.'),
]);

const adapter = z.strictObject({
  engine: documentId.describe("The engine's name in the run configuration."),
  command: argv.describe(
    'Argument array, never a shell. Placeholders: {repo} {workspace} {state} {promptFile} {inputFile} {prompt} {trialId} {traceFile}.',
  ),
  program: z
    .array(
      z.string().regex(/^(\/|\{repo\}(\/|$))/, {
        error: (issue) => `must be an absolute path or start with {repo}, got ${describeValue(issue.input)}`,
      }),
    )
    .default([])
    .describe(
      'Where the engine\'s own program lives: the folders (or files) its command needs, interpreter included, e.g. ["/usr/bin/node", "/opt/my-engine"]. In a task\'s environment each path P is bound read-only at /run/abp/engine + P and the command\'s arguments naming it are rewritten; under the sandbox on the host each is bound read-only. The adapters file\'s folder ({repo}) is always included.',
    ),
  egress: z
    .array(egressRule)
    .default([])
    .describe(
      `Under the sandboxed policy, the only hosts the engine's processes may reach (its model provider's API), through an HTTP proxy the grader runs outside the sandbox and exposes inside it (HTTPS_PROXY and the like); every attempt, allowed or refused, is recorded in the trial. "${HOST_LOOPBACK_NAME}" is the grader's own machine, for a model served there. Empty: no network at all. Ignored under trusted-local, which has the host's network.`,
    ),
  env: z
    .strictObject({
      allow: z
        .array(envName)
        .default([])
        .describe('Host variables passed through by name (credentials belong here, never in `set`).'),
      set: z.record(envName, z.string()).default({}).describe('Literal, non-secret values; reports preserve them.'),
    })
    .default({ allow: [], set: {} }),
  timeoutSeconds: seconds(MAX_PROCESS_SECONDS)
    .optional()
    .describe("Per-trial limit; defaults to the run's timeoutSeconds."),
  maxOutputBytes: positiveInt
    .max(64 * 1024 * 1024)
    .default(1024 * 1024)
    .describe('Capture cap per stream (stdout, stderr).'),
  metadata: z.strictObject({
    model: modelId.optional(),
    provider: z.string().min(1).optional(),
    sampling: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])).optional(),
    toolPolicy: z.string().min(1).optional(),
    deployment: z.enum(['cloud', 'local']).optional(),
  }),
  capabilities: z
    .array(
      z.string().regex(/^[a-z][a-z0-9.-]*$/, {
        error: (issue) => `must be a capability name such as "edit-files", got ${describeValue(issue.input)}`,
      }),
    )
    .default([]),
  preflight: z
    .strictObject({
      prompt: z.string().min(1),
      sentinel: z.string().regex(/\S/, 'must be non-blank: the trimmed output is compared with it exactly'),
      timeoutSeconds: seconds(300).default(120),
      command: argv
        .optional()
        .describe('Another argument array for the health check, e.g. plain-text output instead of a JSON stream.'),
    })
    .describe('A bounded health check that must print exactly the sentinel (trimmed) before the first scored trial.'),
  trace: traceSource.default({ kind: 'native' }),
});

export const adaptersSchema = z
  .strictObject({
    schema: z.literal(ADAPTERS_SCHEMA_ID),
    executionPolicy: z.enum(Object.keys(executionPolicies) as [ExecutionPolicy, ...ExecutionPolicy[]], {
      error: () =>
        'must be set explicitly to "trusted-local" (an acknowledgement that adapters run as you, unsandboxed) or "sandboxed" (bubblewrap)',
    }),
    adapters: z.array(adapter).min(1, 'must define at least one adapter'),
  })
  .superRefine((file, ctx) => {
    for (const { index, first } of duplicateIndices(file.adapters, (entry) => entry.engine)) {
      ctx.addIssue({
        code: 'custom',
        path: ['adapters', index, 'engine'],
        message: `engine ${describeValue(file.adapters[index]?.engine)} already has an adapter at adapters[${first}]`,
      });
    }
  })
  .describe(
    'How the grader invokes each engine: bounded argument-array commands, declared metadata and capabilities, an explicit execution policy.',
  );

export type AbpAdapters = z.infer<typeof adaptersSchema>;
export type Adapter = AbpAdapters['adapters'][number];
export type TraceSourceConfig = Adapter['trace'];
