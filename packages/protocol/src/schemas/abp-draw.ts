// The abp-draw/v1 record: one seeded selection of issues from a registry's backlog (spec §4.1), with what an auditor needs to re-derive it.
import { z } from 'zod';
import {
  conforms,
  describeValue,
  documentId,
  duplicateIndices,
  issueUrl,
  nonBlankText,
  nonNegativeInt,
  parseGithubItemUrl,
  positiveInt,
  registryVersion,
  repoFullName,
  seed,
  sha256Digest,
  utcTimestamp,
} from './primitives.js';

export const DRAW_SCHEMA_ID = 'abp-draw/v1';
/** The name of the documented selection algorithm; a new algorithm gets a new name so old draws stay re-derivable. */
export const DRAW_ALGORITHM = 'abp-draw/v1';

const pick = z.strictObject({
  order: positiveInt.describe('1-based position in the draw; picks are listed in order.'),
  repo: repoFullName,
  issue: positiveInt,
  issueUrl,
  title: nonBlankText,
});

export const drawSchema = z
  .strictObject({
    schema: z.literal(DRAW_SCHEMA_ID),
    id: documentId,
    registryVersion,
    seed,
    algorithm: z.literal(DRAW_ALGORITHM),
    drawnAt: utcTimestamp,
    backlogSnapshot: z
      .strictObject({ digest: sha256Digest, repos: nonNegativeInt, issues: nonNegativeInt })
      .describe(
        'The content-addressed backlog snapshot the picks came from, and how many repositories and issues of it were eligible.',
      ),
    eligibilityRules: z
      .string()
      .regex(/^[A-Za-z0-9][A-Za-z0-9._/-]*$/, {
        error: (issue) =>
          `must name the eligibility rules revision, e.g. "abp-eligibility/1", got ${describeValue(issue.input)}`,
      })
      .describe('The version of the eligibility rules that turned the snapshot into the pool drawn from.'),
    inputDigests: z
      .strictObject({ registry: sha256Digest, backlog: sha256Digest, optOuts: sha256Digest })
      .describe('Digests of every input of the selection, so an auditor can confirm they hold the same ones.'),
    picks: z.array(pick),
    requested: positiveInt,
    digest: sha256Digest.describe('sha256 of the RFC 8785 canonical JSON of this record without its digest field.'),
  })
  .superRefine((draw, ctx) => {
    if (
      draw.inputDigests.backlog !== draw.backlogSnapshot.digest &&
      conforms(sha256Digest, draw.backlogSnapshot.digest)
    ) {
      ctx.addIssue({
        code: 'custom',
        path: ['inputDigests', 'backlog'],
        message: `must equal backlogSnapshot.digest ${draw.backlogSnapshot.digest}: a draw reads one backlog snapshot`,
      });
    }
    draw.picks.forEach((entry, index) => {
      if (entry.order !== index + 1)
        ctx.addIssue({
          code: 'custom',
          path: ['picks', index, 'order'],
          message: `must be ${index + 1}: picks are listed in draw order, numbered from 1 without gaps, got ${entry.order}`,
        });
      const target = parseGithubItemUrl(entry.issueUrl);
      if (
        target &&
        conforms(repoFullName, entry.repo) &&
        (target.repo.toLowerCase() !== entry.repo.toLowerCase() || target.number !== entry.issue)
      ) {
        ctx.addIssue({
          code: 'custom',
          path: ['picks', index, 'issueUrl'],
          message: `points at ${target.repo}#${target.number}, but the pick is ${entry.repo}#${entry.issue}`,
        });
      }
    });
    for (const { index, first } of duplicateIndices(
      draw.picks,
      (entry) => `${entry.repo.toLowerCase()}#${entry.issue}`,
    )) {
      ctx.addIssue({
        code: 'custom',
        path: ['picks', index],
        message: `draws the same issue as picks[${first}]; a draw picks without replacement`,
      });
    }
    if (draw.picks.length > draw.requested) {
      ctx.addIssue({
        code: 'custom',
        path: ['picks'],
        message: `holds ${draw.picks.length} picks, more than the ${draw.requested} requested`,
      });
    } else if (draw.picks.length < draw.requested && draw.picks.length < draw.backlogSnapshot.issues) {
      // Fewer picks than requested is only honest when the eligible backlog ran out.
      ctx.addIssue({
        code: 'custom',
        path: ['picks'],
        message: `holds ${draw.picks.length} of ${draw.requested} requested picks while the backlog has ${draw.backlogSnapshot.issues} eligible issues`,
      });
    }
    if (draw.picks.length > draw.backlogSnapshot.issues) {
      ctx.addIssue({
        code: 'custom',
        path: ['backlogSnapshot', 'issues'],
        message: `counts ${draw.backlogSnapshot.issues} eligible issues, fewer than the ${draw.picks.length} picked from it`,
      });
    }
    const pickedRepos = new Set(draw.picks.map((entry) => entry.repo.toLowerCase())).size;
    if (pickedRepos > draw.backlogSnapshot.repos) {
      ctx.addIssue({
        code: 'custom',
        path: ['backlogSnapshot', 'repos'],
        message: `counts ${draw.backlogSnapshot.repos} repositories, fewer than the ${pickedRepos} the picks come from`,
      });
    }
  })
  .describe('An ABP draw: a seeded, auditable selection of backlog issues from one registry version (spec §4.1).');

export type AbpDraw = z.infer<typeof drawSchema>;
