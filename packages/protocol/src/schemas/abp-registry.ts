// The abp-registry/v1 document: one quarterly version of the curated repository registry (spec §4.1) and its diff to the last one.
import { z } from 'zod';
import {
  command,
  compareCodeUnits,
  conforms,
  describeValue,
  duplicateIndices,
  nonNegativeInt,
  registryVersion,
  registryVersionIndex,
  repoFullName,
  sha256Digest,
  utcTimestamp,
} from './primitives.js';

export const REGISTRY_SCHEMA_ID = 'abp-registry/v1';
export const MAX_REGISTRY_ENTRIES = 500;

/** Test report formats the freeze step can parse into per-test results. */
export const testReportFormats = [
  'junit-xml',
  'tap',
  'go-test-json',
  'jest-json',
  'pytest-reportlog',
  'cargo-libtest-json',
  'cargo-test-text',
  // Written by abp's own reporter, for runners with no per-test report of their own (jasmine, lab).
  'abp-runner-json',
] as const;

/** Why a repository left the registry; closed so rotations can be compared quarter to quarter. */
export const removalReasons = [
  'opted-out',
  'archived',
  'unavailable', // deleted, renamed away or made private
  'not-osi-licensed',
  'inactive', // no merged pull request in the last 30 days
  'no-runnable-tests',
  'issue-hygiene',
  'out-of-top-500',
] as const;

// GitHub reports NOASSERTION/OTHER/NONE when it cannot name a license; the registry requires a named OSI license.
const spdxLicense = z.string().regex(/^(?!(?:NOASSERTION|OTHER|NONE)$)[A-Za-z0-9][A-Za-z0-9.+-]*$/, {
  error: (issue) => `must be an SPDX license id such as "MIT" or "Apache-2.0", got ${describeValue(issue.input)}`,
});

const gitBranch = z.string().regex(/^(?!-)(?!.*\.\.)(?!.*\/\/)(?!.*(?:\/|\.lock)$)[^\s~^:?*[\\\0]+$/, {
  error: (issue) => `must be a git branch name, e.g. "main", got ${describeValue(issue.input)}`,
});

export const registryEntrySchema = z.strictObject({
  repo: repoFullName,
  stars: nonNegativeInt,
  license: spdxLicense,
  defaultBranch: gitBranch,
  runner: z
    .strictObject({
      language: z.string().regex(/^[a-z][a-z0-9+#-]*$/, {
        error: (issue) => `must be a lowercase language name such as "typescript", got ${describeValue(issue.input)}`,
      }),
      install: z.array(command),
      test: z
        .array(command)
        .min(1, 'must list at least one command: the registry requires a runnable test suite (spec §4.1)'),
      reportFormat: z.enum(testReportFormats),
    })
    .describe('How the freeze step installs the repository and runs its tests.'),
  addedIn: registryVersion.describe('The registry version this repository (last) joined in.'),
});

const removal = z.strictObject({
  repo: repoFullName,
  reason: z.enum(removalReasons),
  detail: z.string().optional(),
});

/** Adds an issue to every element of a repo list that is out of code-unit order or repeats an earlier one. */
function checkSortedUnique(
  repos: readonly string[],
  ctx: z.core.$RefinementCtx,
  path: Array<string | number>,
  suffix: Array<string | number>,
) {
  for (const { index, first } of duplicateIndices(repos, (repo) => repo.toLowerCase())) {
    ctx.addIssue({
      code: 'custom',
      path: [...path, index, ...suffix],
      message: `repeats ${describeValue(repos[first])} at index ${first} (GitHub names are case-insensitive); list each repository once`,
    });
  }
  repos.forEach((repo, index) => {
    const previous = index > 0 ? repos[index - 1] : undefined;
    if (previous !== undefined && compareCodeUnits(previous, repo) > 0) {
      ctx.addIssue({
        code: 'custom',
        path: [...path, index, ...suffix],
        message: `is out of order: ${describeValue(repo)} must come before ${describeValue(previous)} (sort by repo in code-unit order)`,
      });
    }
  });
}

// Sorted lists make the canonical JSON, and so the digest, independent of how the rotation happened to enumerate repos.
const sortedRepoList = z.array(repoFullName).superRefine((repos, ctx) => checkSortedUnique(repos, ctx, [], []));

export const registrySchema = z
  .strictObject({
    schema: z.literal(REGISTRY_SCHEMA_ID),
    version: registryVersion,
    criteriaVersion: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._/-]*$/, {
      error: (issue) =>
        `must name the curation criteria revision, e.g. "abp-criteria/1", got ${describeValue(issue.input)}`,
    }),
    sourcedAt: utcTimestamp.describe('When the candidate repositories were evaluated.'),
    entries: z
      .array(registryEntrySchema)
      .max(MAX_REGISTRY_ENTRIES, `must hold at most ${MAX_REGISTRY_ENTRIES} repositories (spec §4.1)`)
      .superRefine((entries, ctx) =>
        checkSortedUnique(
          entries.map((e) => e.repo),
          ctx,
          [],
          ['repo'],
        ),
      )
      .describe('Sorted by repo in code-unit order, each repository once.'),
    digest: sha256Digest.describe('sha256 of the RFC 8785 canonical JSON of this document without its digest field.'),
    previous: registryVersion.nullable().describe('The version this one rotates from; null for the first registry.'),
    diff: z
      .strictObject({
        added: sortedRepoList,
        removed: z.array(removal).superRefine((removed, ctx) =>
          checkSortedUnique(
            removed.map((r) => r.repo),
            ctx,
            [],
            ['repo'],
          ),
        ),
        kept: sortedRepoList,
      })
      .describe('Against previous: added and kept together are exactly the entries; removed ones are gone.'),
  })
  .superRefine((registry, ctx) => {
    const version = registryVersionIndex(registry.version);
    const previous = registry.previous === null ? null : registryVersionIndex(registry.previous);
    if (version !== null && previous !== null && previous >= version) {
      ctx.addIssue({
        code: 'custom',
        path: ['previous'],
        message: `must be an earlier version than ${registry.version}, got ${describeValue(registry.previous)}`,
      });
    }
    const entryAt = new Map(registry.entries.map((entry, index) => [entry.repo.toLowerCase(), { entry, index }]));
    const added = new Set(registry.diff.added.map((repo) => repo.toLowerCase()));
    const kept = new Set(registry.diff.kept.map((repo) => repo.toLowerCase()));
    if (registry.previous === null) {
      if (registry.diff.kept.length > 0)
        ctx.addIssue({
          code: 'custom',
          path: ['diff', 'kept'],
          message: 'must be empty: the first registry (previous null) keeps nothing',
        });
      if (registry.diff.removed.length > 0)
        ctx.addIssue({
          code: 'custom',
          path: ['diff', 'removed'],
          message: 'must be empty: the first registry (previous null) removes nothing',
        });
    }
    registry.diff.added.forEach((repo, index) => {
      if (kept.has(repo.toLowerCase()))
        ctx.addIssue({
          code: 'custom',
          path: ['diff', 'added', index],
          message: `${describeValue(repo)} is also in diff.kept; a repository is either added or kept`,
        });
      else if (!entryAt.has(repo.toLowerCase()))
        ctx.addIssue({
          code: 'custom',
          path: ['diff', 'added', index],
          message: `${describeValue(repo)} is not in entries; an added repository must be listed`,
        });
    });
    registry.diff.kept.forEach((repo, index) => {
      if (!entryAt.has(repo.toLowerCase()))
        ctx.addIssue({
          code: 'custom',
          path: ['diff', 'kept', index],
          message: `${describeValue(repo)} is not in entries; a kept repository must be listed`,
        });
    });
    registry.diff.removed.forEach((removal, index) => {
      if (entryAt.has(removal.repo.toLowerCase()))
        ctx.addIssue({
          code: 'custom',
          path: ['diff', 'removed', index, 'repo'],
          message: `${describeValue(removal.repo)} is still in entries; a removed repository is not listed`,
        });
    });
    registry.entries.forEach((entry, index) => {
      const key = entry.repo.toLowerCase();
      if (!added.has(key) && !kept.has(key)) {
        ctx.addIssue({
          code: 'custom',
          path: ['entries', index, 'repo'],
          message: `${describeValue(entry.repo)} is in neither diff.added nor diff.kept; every entry is one or the other`,
        });
        return;
      }
      const addedIn = registryVersionIndex(entry.addedIn);
      if (!conforms(registryVersion, registry.version) || addedIn === null) return;
      if (added.has(key) && entry.addedIn !== registry.version) {
        ctx.addIssue({
          code: 'custom',
          path: ['entries', index, 'addedIn'],
          message: `must be ${registry.version}: the repository is in diff.added, got ${describeValue(entry.addedIn)}`,
        });
      }
      if (kept.has(key) && version !== null && addedIn >= version) {
        ctx.addIssue({
          code: 'custom',
          path: ['entries', index, 'addedIn'],
          message: `must be earlier than ${registry.version}: the repository is in diff.kept, got ${describeValue(entry.addedIn)}`,
        });
      }
    });
  })
  .describe(
    'An ABP registry version: the curated repositories of one quarter, content-addressed by digest, with the diff to the previous version.',
  );

export type AbpRegistry = z.infer<typeof registrySchema>;
export type RegistryEntry = AbpRegistry['entries'][number];
