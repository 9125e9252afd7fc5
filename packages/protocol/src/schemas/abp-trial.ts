// The abp-trial/v1 envelope: one self-contained record per (task, engine, trial), the receipt behind every verdict number.
import { z } from 'zod';
import {
  documentId,
  nonNegativeInt,
  positiveInt,
  relativePath,
  sha256Digest,
  usd,
  utcTimestamp,
} from './primitives.js';
import { tokenCounts } from './abp-trace.js';

export const TRIAL_SCHEMA_ID = 'abp-trial/v1';

/** How a trial ended. Only resolved, unresolved and disqualified are scored; the rest are reported and excluded (spec §3.4). */
export const trialOutcomeMeanings = {
  resolved: 'the held-out verification passed',
  unresolved: 'verification failed, or the engine timed out or exceeded its budget',
  disqualified:
    'the engine deleted or weakened tests (spec §4.5), or the verification run was tampered with; scored as not resolved',
  'engine-error': 'the harness proved the engine never acted: it could not be invoked or failed preflight; excluded',
  'harness-error': 'the grader failed around the engine; excluded and reported',
  unsupported: 'the task needs a capability the adapter does not declare; not run, reported apart',
} as const;
export type TrialOutcome = keyof typeof trialOutcomeMeanings;
export const trialOutcomes = Object.keys(trialOutcomeMeanings) as [TrialOutcome, ...TrialOutcome[]];
export const scoredOutcomes: ReadonlySet<TrialOutcome> = new Set(['resolved', 'unresolved', 'disqualified']);

const testCounts = z.strictObject({
  total: nonNegativeInt,
  pass: nonNegativeInt,
  fail: nonNegativeInt,
  error: nonNegativeInt,
  skip: nonNegativeInt,
});

const verificationCommand = z.strictObject({
  role: z.enum(['failToPass', 'passToPass']),
  command: z.string(),
  runner: z.string(),
  passed: z.boolean(),
  evidence: z.enum(['report', 'exit-code', 'none']),
  tests: testCounts,
  exitCode: z.int().nullable(),
  timedOut: z.boolean(),
  durationMs: nonNegativeInt,
  reasons: z.array(z.string()),
});

/** A graded test id that did not pass, and what the reports said of it. */
const judgedProblem = z.strictObject({ id: z.string(), status: z.enum(['fail', 'error', 'skip', 'missing']) });

const judgedSet = z.strictObject({
  expected: nonNegativeInt,
  passed: nonNegativeInt,
  problems: z
    .array(judgedProblem)
    .describe('The first 100 ids that did not pass, in code-unit order; expected - passed counts them all.'),
});

const canaryRecord = z.strictObject({
  command: nonNegativeInt.describe('Index into commands of the run the sentinels were planted for.'),
  role: z.enum(['must-pass', 'must-fail']),
  status: z.enum(['pass', 'fail', 'error', 'skip', 'missing']),
  intact: z.boolean(),
});

const assertionResult = z.strictObject({ kind: z.string(), passed: z.boolean(), detail: z.string() });

export const trialSchema = z
  .strictObject({
    schema: z.literal(TRIAL_SCHEMA_ID),
    trialId: documentId,
    task: documentId,
    taskDigest: sha256Digest,
    engine: documentId,
    trial: nonNegativeInt.describe('Repetition index of this (task, engine) pair, from 0.'),
    order: nonNegativeInt.describe('Position in the run schedule (abba, shuffled or sequential).'),
    outcome: z.enum(trialOutcomes),
    reason: z
      .string()
      .nullable()
      .describe(
        'A short code: timeout, budget-exceeded, could-not-invoke, failed-preflight, zero-model-calls, deleted-test-file…',
      ),
    detail: z.string().nullable(),
    engineProcess: z
      .strictObject({
        exitCode: z.int().nullable(),
        signal: z.string().nullable(),
        timedOut: z.boolean(),
        durationMs: nonNegativeInt,
        stdoutBytes: nonNegativeInt,
        stderrBytes: nonNegativeInt,
        truncated: z.boolean(),
        sandboxed: z.boolean(),
        isolated: z
          .boolean()
          .default(false)
          .describe(
            "The engine ran in process and mount namespaces of its own, killed whole when it ended (nothing it started outlived it) and unable to see the grader's process; false only for a trusted-local engine where bubblewrap cannot run.",
          ),
        environment: z
          .string()
          .regex(/^sha256:[0-9a-f]{64}$/)
          .nullable()
          .default(null)
          .describe("The digest of the task's environment the engine ran in; null when it ran on the host."),
        egress: z
          .strictObject({
            allow: z.array(z.string()).describe('The adapter\'s allow-list, as "host:port" (a domain as "*.name").'),
            attempts: z
              .array(
                z.strictObject({
                  host: z.string(),
                  port: z.int().min(1).max(65535),
                  allowed: z.boolean(),
                  error: z
                    .string()
                    .nullable()
                    .describe('Why it was refused or failed; null for a connection that was made.'),
                  count: positiveInt,
                }),
              )
              .describe('Every connection the engine asked the egress proxy for, grouped, sorted by host and port.'),
          })
          .nullable()
          .default(null)
          .describe(
            "Under sandboxed, with an egress allow-list: what the engine's processes tried to reach through the proxy, the only way out. null when the engine had no network at all, or the host's (trusted-local).",
          ),
      })
      .nullable(),
    diff: z
      .strictObject({
        codeBytes: nonNegativeInt,
        testBytes: nonNegativeInt,
        excludedBytes: nonNegativeInt,
        filesTouched: nonNegativeInt,
        testWeakening: z.array(z.strictObject({ path: z.string(), reason: z.string() })),
        heldOutPathsTouched: z
          .array(z.string())
          .describe('Paths the engine wrote that the held-out material overwrites at verification.'),
      })
      .nullable(),
    verification: z
      .strictObject({
        patchApplied: z.boolean(),
        commands: z.array(verificationCommand),
        assertions: z.array(assertionResult),
        judged: z
          .strictObject({ failToPass: judgedSet, passToPass: judgedSet })
          .nullable()
          .default(null)
          .describe(
            "The frozen FAIL_TO_PASS and PASS_TO_PASS ids, judged across every command's report; null for a task without expected results.",
          ),
        canaries: z
          .array(canaryRecord)
          .default([])
          .describe('The sentinel tests the grader planted beside the held-out tests, and what each report said.'),
        canariesUnavailable: z
          .array(z.string())
          .default([])
          .describe('Why a command ran without sentinels (a runner or a selection sentinels cannot join).'),
        machineryRestored: z
          .array(z.string())
          .default([])
          .describe("Paths of the engine's diff that configure the test runner, put back as the base had them."),
      })
      .nullable(),
    metrics: z.strictObject({
      diffBytesNormalized: nonNegativeInt.nullable(),
      tokensTotal: nonNegativeInt.nullable(),
      wallClockMs: nonNegativeInt.nullable(),
      computedUsd: usd.nullable(),
    }),
    trace: z
      .strictObject({
        source: z
          .string()
          .describe('"native", "sidecar:<translator>" or "missing": which path produced the trace (spec §6).'),
        flags: z.array(z.string()),
        problems: nonNegativeInt,
        modelCalls: nonNegativeInt,
        tokens: tokenCounts,
        perModel: z.record(z.string(), tokenCounts),
        perSubagent: z.record(z.string(), tokenCounts.extend({ parent: z.string().nullable() })),
        unpricedModels: z.array(z.string()),
      })
      .nullable(),
    receipts: z.strictObject({
      stdout: relativePath.nullable(),
      stderr: relativePath.nullable(),
      diff: relativePath.nullable(),
      trace: relativePath.nullable(),
      verificationLog: relativePath.nullable(),
    }),
    timing: z.strictObject({ startedAt: utcTimestamp, finishedAt: utcTimestamp, harnessOverheadMs: nonNegativeInt }),
  })
  .describe(
    'One trial of a run: outcome, reason, the engine process, diff, verification, metrics, trace summary and receipt paths.',
  );

export type AbpTrial = z.infer<typeof trialSchema>;
