// The abp-draw/v1 record of one draw: its inputs by digest, the picks in order, a deterministic id and a digest of the
// whole record. Pure: the same inputs give the same bytes on any machine (drawnAt is an input, never the clock).
import { DRAW_ALGORITHM, DRAW_SCHEMA_ID, drawSchema } from '../schemas/abp-draw.js';
import type { AbpDraw } from '../schemas/abp-draw.js';
import { canonicalJson } from '../schemas/canonical-json.js';
import { formatJsonPath } from '../schemas/json-text.js';
import { compareCodeUnits } from '../schemas/primitives.js';
import { contentDigest } from '../schemas/registry-digest.js';
import type { EligiblePool } from '../backlog/types.js';
import { DrawError } from './errors.js';
import { selectIssues } from './select.js';

/** Everything a draw depends on; the picks follow from these alone. */
export interface DrawInputs {
  seed: number;
  /** How many picks were asked for. */
  count: number;
  /** RFC 3339 UTC; recorded, never read by the selection. */
  drawnAt: string;
  registryVersion: string;
  /** The `digest` of the abp-registry/v1 document of registryVersion. */
  registryDigest: string;
  /** The content digest of the backlog snapshot the pool was derived from. */
  snapshotDigest: string;
  /** The version of the eligibility rules that derived the pool. */
  eligibilityRules: string;
  optOuts: ReadonlySet<string>;
  pool: EligiblePool;
}

/**
 * The digest of an opt-out list: the content digest of its repositories, lower-cased (opt-outs match GitHub names
 * case-insensitively), each once, as a JSON array in code-unit order.
 */
export function optOutsDigest(optOuts: ReadonlySet<string>): string {
  return contentDigest([...new Set([...optOuts].map((repo) => repo.toLowerCase()))].sort(compareCodeUnits));
}

/**
 * "draw-<YYYYQn>-<seed>-<12 hex>": the hex is the start of the content digest of the selection's inputs, so the same
 * draw asked for twice gets the same id (drawnAt is left out: it records when, not what).
 */
export function drawId(inputs: Omit<DrawInputs, 'drawnAt' | 'pool' | 'optOuts'> & { optOutsDigest: string }): string {
  const quarter = inputs.registryVersion.slice(inputs.registryVersion.indexOf('/') + 1);
  const selection = contentDigest({
    algorithm: DRAW_ALGORITHM,
    count: inputs.count,
    eligibilityRules: inputs.eligibilityRules,
    optOuts: inputs.optOutsDigest,
    registry: inputs.registryDigest,
    registryVersion: inputs.registryVersion,
    seed: inputs.seed,
    snapshot: inputs.snapshotDigest,
  });
  return `draw-${quarter}-${inputs.seed}-${selection.slice('sha256:'.length, 'sha256:'.length + 12)}`;
}

/** The digest a draw record must carry: the content digest of the record without its digest field. */
export function drawRecordDigest(record: Readonly<Record<string, unknown>>): string {
  const rest: Record<string, unknown> = { ...record };
  delete rest.digest;
  return contentDigest(rest);
}

/** The published bytes of a record: its canonical JSON (RFC 8785) and one newline. */
export function drawRecordText(record: AbpDraw): string {
  return `${canonicalJson(record)}\n`;
}

/** Runs the selection and records it; throws DrawError when the inputs cannot make a valid abp-draw/v1 record. */
export function buildDrawRecord(inputs: DrawInputs): AbpDraw {
  const picks = selectIssues(inputs.pool, { seed: inputs.seed, count: inputs.count });
  const eligible = inputs.pool.repos.filter((entry) => entry.issues.length > 0);
  const optOuts = optOutsDigest(inputs.optOuts);
  const record: Omit<AbpDraw, 'digest'> = {
    schema: DRAW_SCHEMA_ID,
    id: drawId({ ...inputs, optOutsDigest: optOuts }),
    registryVersion: inputs.registryVersion,
    seed: inputs.seed,
    algorithm: DRAW_ALGORITHM,
    drawnAt: inputs.drawnAt,
    backlogSnapshot: {
      digest: inputs.snapshotDigest,
      repos: eligible.length,
      issues: eligible.reduce((sum, entry) => sum + entry.issues.length, 0),
    },
    eligibilityRules: inputs.eligibilityRules,
    inputDigests: { registry: inputs.registryDigest, backlog: inputs.snapshotDigest, optOuts },
    picks: picks.map((pick, index) => ({
      order: index + 1,
      repo: pick.repo,
      issue: pick.number,
      issueUrl: `https://github.com/${pick.repo}/issues/${pick.number}`,
      title: pick.title,
    })),
    requested: inputs.count,
  };
  const complete: AbpDraw = { ...record, digest: drawRecordDigest(record) };
  const parsed = drawSchema.safeParse(complete);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${formatJsonPath(issue.path)} ${issue.message}`).join('; ');
    throw new DrawError(
      'invalid-record',
      `the draw inputs do not make a valid abp-draw/v1 record: ${problems}; fix the named input`,
      { cause: parsed.error },
    );
  }
  return complete;
}
