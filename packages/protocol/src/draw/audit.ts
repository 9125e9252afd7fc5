// The offline audit of an abp-draw/v1 record: re-derive the pool from the backlog snapshot and the opt-out list,
// re-run the selection, rebuild the record and report the first difference in plain words (docs/draw-algorithm.md §7).
import { DRAW_ALGORITHM, drawSchema } from '../schemas/abp-draw.js';
import type { AbpDraw } from '../schemas/abp-draw.js';
import { formatJsonPath } from '../schemas/json-text.js';
import { describeValue } from '../schemas/primitives.js';
import { eligiblePool } from '../backlog/eligibility.js';
import { snapshotDigest } from '../backlog/snapshot.js';
import type { BacklogSnapshot, EligiblePool } from '../backlog/types.js';
import { buildDrawRecord, optOutsDigest } from './record.js';

/** Turns a snapshot into the pool a draw selects from; eligiblePool unless a test supplies a pool directly. */
export type DerivePool = (
  snapshot: BacklogSnapshot,
  options: { optOuts: ReadonlySet<string> },
) => { pool: EligiblePool; rules: string };

export interface DrawAuditInput {
  /** The record as published; checked against the abp-draw/v1 schema first. */
  record: unknown;
  snapshot: BacklogSnapshot;
  /** The opt-out list in force when the draw was made. */
  optOuts: ReadonlySet<string>;
  /** The digest of the registry document, when the auditor holds it; otherwise the record's claim is taken. */
  registryDigest?: string;
  derivePool?: DerivePool;
}

export type DrawAudit = { match: true } | { match: false; firstDifference: string };

const differ = (firstDifference: string): DrawAudit => ({ match: false, firstDifference });

/** "owner/name#123 "title"", how a pick is named in a difference. */
function describePick(pick: AbpDraw['picks'][number]): string {
  return `${pick.repo}#${pick.issue} ${describeValue(pick.title)}`;
}

/** The first pick that differs, or the difference in number of picks; null when the picks agree. */
function pickDifference(claimed: AbpDraw, derived: AbpDraw): string | null {
  for (const [index, expected] of derived.picks.entries()) {
    const actual = claimed.picks[index];
    if (actual === undefined) break;
    const place = `pick ${index + 1}`;
    if (actual.repo !== expected.repo || actual.issue !== expected.issue) {
      return `${place}: the record has ${describePick(actual)}, re-deriving with seed ${claimed.seed} gives ${describePick(expected)}`;
    }
    if (actual.title !== expected.title)
      return `${place} title: the record has ${describeValue(actual.title)}, the snapshot has ${describeValue(expected.title)}`;
    if (actual.issueUrl !== expected.issueUrl)
      return `${place} issue URL: the record has ${actual.issueUrl}, it must be ${expected.issueUrl}`;
  }
  if (claimed.picks.length !== derived.picks.length) {
    return `number of picks: the record has ${claimed.picks.length}, re-deriving ${claimed.requested} requested from a pool of ${derived.backlogSnapshot.issues} gives ${derived.picks.length}`;
  }
  return null;
}

/** Re-derives a draw offline and compares it with its record, field by field in the documented order. */
export function auditDraw(input: DrawAuditInput): DrawAudit {
  // Named before the schema check, whose literal rule would only say "expected abp-draw/v1".
  const algorithm =
    typeof input.record === 'object' && input.record !== null
      ? (input.record as { algorithm?: unknown }).algorithm
      : undefined;
  if (algorithm !== DRAW_ALGORITHM) {
    return differ(
      `algorithm: the record names ${describeValue(algorithm)}; this auditor re-derives ${DRAW_ALGORITHM} only (docs/draw-algorithm.md)`,
    );
  }
  const parsed = drawSchema.safeParse(input.record);
  if (!parsed.success) {
    const [problem] = parsed.error.issues;
    return differ(
      `the record is not a valid abp-draw/v1 document: ${problem ? `${formatJsonPath(problem.path)} ${problem.message}` : 'it does not parse'}`,
    );
  }
  const claimed = parsed.data;
  if (claimed.registryVersion !== input.snapshot.registryVersion) {
    return differ(
      `registry version: the record says ${claimed.registryVersion}, the snapshot is of ${input.snapshot.registryVersion}`,
    );
  }
  const snapshot = snapshotDigest(input.snapshot);
  if (claimed.backlogSnapshot.digest !== snapshot) {
    return differ(
      `backlog snapshot digest: the record says ${claimed.backlogSnapshot.digest}, the snapshot given hashes to ${snapshot}; it is not the snapshot the draw was made from`,
    );
  }
  const { pool, rules } = (input.derivePool ?? eligiblePool)(input.snapshot, { optOuts: input.optOuts });
  if (claimed.eligibilityRules !== rules) {
    return differ(
      `eligibility rules: the record was drawn with ${claimed.eligibilityRules}, this auditor derives the pool with ${rules}`,
    );
  }
  const optOuts = optOutsDigest(input.optOuts);
  if (claimed.inputDigests.optOuts !== optOuts) {
    return differ(
      `opt-out list digest: the record says ${claimed.inputDigests.optOuts}, the opt-out list given hashes to ${optOuts}`,
    );
  }
  if (input.registryDigest !== undefined && claimed.inputDigests.registry !== input.registryDigest) {
    return differ(
      `registry digest: the record says ${claimed.inputDigests.registry}, the registry document given has ${input.registryDigest}`,
    );
  }
  const derived = buildDrawRecord({
    seed: claimed.seed,
    count: claimed.requested,
    drawnAt: claimed.drawnAt,
    registryVersion: input.snapshot.registryVersion,
    registryDigest: input.registryDigest ?? claimed.inputDigests.registry,
    snapshotDigest: snapshot,
    eligibilityRules: rules,
    optOuts: input.optOuts,
    pool,
  });
  for (const field of ['repos', 'issues'] as const) {
    if (claimed.backlogSnapshot[field] !== derived.backlogSnapshot[field]) {
      return differ(
        `eligible ${field === 'repos' ? 'repositories' : 'issues'}: the record counts ${claimed.backlogSnapshot[field]}, re-deriving the pool gives ${derived.backlogSnapshot[field]}`,
      );
    }
  }
  const picks = pickDifference(claimed, derived);
  if (picks !== null) return differ(picks);
  if (claimed.id !== derived.id)
    return differ(`id: the record says ${claimed.id}, re-deriving from its inputs gives ${derived.id}`);
  if (claimed.digest !== derived.digest) {
    return differ(
      `digest: the record says ${claimed.digest}, its content hashes to ${derived.digest}; the record was changed after it was made`,
    );
  }
  return { match: true };
}
