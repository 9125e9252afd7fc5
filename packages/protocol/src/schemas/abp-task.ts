// The abp-task/v1 manifest (spec §5): one frozen task that every engine replays under matched config.
import { z } from 'zod';
import {
  command,
  conforms,
  containerImage,
  cutoffEnd,
  describeValue,
  documentId,
  duplicateIndices,
  gitSha,
  modelCutoff,
  nonBlankText,
  parseGithubItemUrl,
  positiveInt,
  pullRequestUrl,
  registryVersion,
  relativePath,
  repoFullName,
  seed,
  utcTimestamp,
} from './primitives.js';

export const TASK_SCHEMA_ID = 'abp-task/v1';

/** The id of a task sourced from a GitHub issue: "gh-<owner>-<name>-<issue>", e.g. "gh-vercel-next.js-81234". */
export function githubTaskId(repo: string, issue: number): string {
  return `gh-${repo.replace('/', '-')}-${issue}`;
}

/**
 * Where a task's golden trace is published, relative to the registry's API root (`abp serve`'s `/v1/`) and to the
 * folder `abp pull` makes for the task: `traces/<task id>.abp-trace.jsonl`, as `golden.trace` names it.
 */
export function goldenTracePath(taskId: string): string {
  return `traces/${taskId}.abp-trace.jsonl`;
}

const githubIssueSource = z
  .strictObject({
    kind: z.literal('github-issue'),
    repo: repoFullName,
    issue: positiveInt,
    baseCommit: gitSha.describe('The pre-fix commit the repository is frozen at.'),
    sourcedAt: utcTimestamp.describe('When the issue was drawn from the live backlog (spec §4.4).'),
    registryVersion: registryVersion.describe('The registry the issue was drawn from.'),
    drawSeed: seed,
  })
  .describe('A task drawn from a registry repository and verified by a maintainer merge (spec §4.1-4.2).');

// Synthetic fixtures carry no issue and no golden block; they name the workspace the harness materializes instead.
const fixtureSource = z
  .strictObject({
    kind: z.literal('fixture'),
    fixture: relativePath.describe('The fixture workspace, relative to the task bundle.'),
    baseCommit: gitSha.optional(),
    sourcedAt: utcTimestamp.optional(),
  })
  .describe('A synthetic task; a harness treats it exactly like a github-issue task at run time.');

function noRepeats(label: string) {
  return (values: string[], ctx: z.core.$RefinementCtx<string[]>) => {
    for (const { index, first } of duplicateIndices(values)) {
      ctx.addIssue({
        code: 'custom',
        path: [index],
        message: `repeats ${label} [${first}] ${describeValue(values[index])}; list each once`,
      });
    }
  };
}

const verification = z
  .strictObject({
    kind: z.literal('commands'),
    failToPass: z
      .array(command)
      .min(1, 'must list at least one command: a task without FAIL_TO_PASS tests cannot tell a fix from no change')
      .superRefine(noRepeats('failToPass'))
      .describe('Commands that fail before the verified fix and pass after it.'),
    passToPass: z
      .array(command)
      .superRefine(noRepeats('passToPass'))
      .describe('Commands that pass before and after the verified fix.'),
    timeoutSeconds: positiveInt,
    heldOut: z
      .literal(true, {
        error: 'must be true: verification material stays out of the workspace until the engine exits (spec §3.2)',
      })
      .describe('Always true: the agent never grades itself.'),
  })
  .superRefine((value, ctx) => {
    // A command cannot both fail and pass before the fix; listing it twice means the freeze step misclassified it.
    const failing = new Set(value.failToPass);
    value.passToPass.forEach((entry, index) => {
      if (failing.has(entry))
        ctx.addIssue({
          code: 'custom',
          path: ['passToPass', index],
          message: `${describeValue(entry)} is also in failToPass; a command belongs to one set`,
        });
    });
  });

const golden = z
  .strictObject({
    diffBytesNormalized: positiveInt.describe('Size of the verified fix after normalization (spec §4.5).'),
    filesTouched: positiveInt,
    trace: relativePath
      .regex(/\.jsonl$/, {
        error: (issue) => `must name a JSONL trace file ending in ".jsonl", got ${describeValue(issue.input)}`,
      })
      .optional()
      .describe(
        'The golden abp-trace/v1 file the solving engine printed (spec §4.2), published beside the bundle as evidence, never as the rubric; absent when no trace was kept.',
      ),
    mergedPr: pullRequestUrl.describe('The maintainer-merged pull request: the ground truth of the task.'),
  })
  .describe('The verified fix; github-issue tasks only.');

export const taskSchema = z
  .strictObject({
    schema: z.literal(TASK_SCHEMA_ID),
    id: documentId,
    source: z.discriminatedUnion('kind', [githubIssueSource, fixtureSource]),
    prompt: nonBlankText.describe('The full task statement given to every engine.'),
    environment: z.strictObject({ image: containerImage, setup: z.array(command) }),
    verification,
    golden: golden.optional(),
    requires: z
      .array(
        z.string().regex(/^[a-z][a-z0-9.-]*$/, {
          error: (issue) => `must be a capability name such as "run-commands", got ${describeValue(issue.input)}`,
        }),
      )
      .superRefine(noRepeats('requires'))
      .optional()
      .describe(
        'An abp extension: capabilities an engine must declare to attempt the task; trials of engines that lack one are reported as unsupported.',
      ),
    cutoffsVerified: z
      .array(modelCutoff)
      .superRefine(noRepeats('cutoffsVerified'))
      .describe('"<model>:<YYYY-MM>" training cutoffs the task was sourced after (spec §4.4).'),
  })
  .superRefine((task, ctx) => {
    const { source } = task;
    if (source.kind === 'fixture') {
      if (task.golden)
        ctx.addIssue({
          code: 'custom',
          path: ['golden'],
          message: 'fixture tasks have no golden block (spec §5); remove it',
        });
      return;
    }
    if (!task.golden) {
      ctx.addIssue({
        code: 'custom',
        path: ['golden'],
        message: 'is required for github-issue tasks: the maintainer-merged fix is the ground truth (spec §4.2)',
      });
    } else {
      const pr = parseGithubItemUrl(task.golden.mergedPr);
      if (pr && conforms(repoFullName, source.repo) && pr.repo.toLowerCase() !== source.repo.toLowerCase()) {
        ctx.addIssue({
          code: 'custom',
          path: ['golden', 'mergedPr'],
          message: `points at ${pr.repo}, but the task's repo is ${source.repo}; the fix must be merged where the issue lives`,
        });
      }
    }
    if (conforms(repoFullName, source.repo) && conforms(positiveInt, source.issue) && conforms(documentId, task.id)) {
      const expected = githubTaskId(source.repo, source.issue);
      if (task.id !== expected)
        ctx.addIssue({
          code: 'custom',
          path: ['id'],
          message: `github-issue tasks are named gh-<owner>-<name>-<issue>: expected "${expected}", got ${describeValue(task.id)}`,
        });
    }
    if (task.cutoffsVerified.length === 0) {
      ctx.addIssue({
        code: 'custom',
        path: ['cutoffsVerified'],
        message:
          'must list the model cutoffs the task was verified against (spec §4.4), e.g. ["claude-sonnet-5:2026-01"]',
      });
    }
    // Contamination control (spec §4.4): the issue is drawn after every candidate model's training cutoff.
    if (!conforms(utcTimestamp, source.sourcedAt)) return;
    const sourcedAt = Date.parse(source.sourcedAt);
    task.cutoffsVerified.forEach((cutoff, index) => {
      const end = cutoffEnd(cutoff);
      if (end && end.getTime() > sourcedAt) {
        ctx.addIssue({
          code: 'custom',
          path: ['cutoffsVerified', index],
          message: `cutoff ${describeValue(cutoff)} is not before sourcedAt ${source.sourcedAt}; a task must be sourced after every model cutoff it is verified against`,
        });
      }
    });
  })
  .describe('An ABP task manifest: a frozen task, its environment and its held-out verification (spec §5).');

export type AbpTask = z.infer<typeof taskSchema>;
