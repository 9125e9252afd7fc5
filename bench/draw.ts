// How long a seeded draw of 100 issues takes from a 500-repository, 1,000,000-issue backlog snapshot, and how long
// its offline audit takes, with the peak memory of each, against the 2 s / 1 GiB targets of issue 5. The draw is
// everything from the snapshot in memory to the record: snapshot digest, eligibility, selection, record. The audit
// is auditDraw: the same re-derived and compared. Baseline, measured in the same run: one pass over every issue.
// Writing and reading the snapshot file are reported beside them, not counted.
//   node bin/run-ts.js bench/draw.ts [seed]
import { readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SIGNAL_RULES } from '@abp/protocol/backlog/body-signals';
import { eligiblePool } from '@abp/protocol/backlog/eligibility';
import { readSnapshot, snapshotDigest, writeSnapshot } from '@abp/protocol/backlog/snapshot';
import type { BacklogIssue, BacklogSnapshot } from '@abp/protocol/backlog/types';
import { BACKLOG_SCHEMA_ID } from '@abp/protocol/backlog/types';
import { auditDraw } from '@abp/protocol/draw/audit';
import { buildDrawRecord, drawRecordText } from '@abp/protocol/draw/record';

const seed = Number(process.argv[2] ?? 424242);
const repoCount = 500;
const issueCount = 1_000_000;
const picks = 100;
const timeTargetMs = 2_000;
const peakTargetBytes = 1024 ** 3;

function mib(bytes: number): string {
  return `${(bytes / 1024 ** 2).toFixed(0)} MiB`;
}

/**
 * Runs `step` and returns its time and the process's peak resident memory while it ran: Linux's VmHWM, reset to the
 * current RSS first (clear_refs 5), so each step reports its own peak, with everything it holds on to counted.
 */
function measured<T>(step: () => T): { value: T; ms: number; peakBytes: number } {
  writeFileSync('/proc/self/clear_refs', '5');
  const started = performance.now();
  const value = step();
  const ms = performance.now() - started;
  const hwm = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1];
  return { value, ms, peakBytes: Number(hwm) * 1024 };
}

/** Repository sizes that fall off like a popularity curve (the largest about 40 times the median) and sum to issueCount. */
function repoSizes(): number[] {
  const weights = Array.from({ length: repoCount }, (_, index) => 1 / (index + 1) ** 0.8);
  const total = weights.reduce((sum, weight) => sum + weight, 0);
  const sizes = weights.map((weight) => Math.max(1, Math.floor((weight / total) * issueCount)));
  sizes[0] = (sizes[0] ?? 0) + issueCount - sizes.reduce((sum, size) => sum + size, 0);
  return sizes;
}

/** The synthetic snapshot: shared label, signal and timestamp values (as a parser interning them would), one title each. */
function syntheticSnapshot(): BacklogSnapshot {
  const bug = ['bug'];
  const question = ['question'];
  const enhancement = ['enhancement'];
  const reproduced = { reproduction: true, question: false, proposal: false };
  const asking = { reproduction: false, question: true, proposal: false };
  const none: number[] = [];
  const authors = Array.from({ length: 5_000 }, (_, index) => `user${index}`);
  const names = Array.from(
    { length: repoCount },
    (_, index) => `org${(index * 7919) % 100_003}/project-${index}`,
  ).sort();
  const sizes = repoSizes();
  return {
    schema: BACKLOG_SCHEMA_ID,
    registryVersion: 'abp-registry/2026Q4',
    takenAt: '2026-10-02T00:00:00Z',
    signalRules: SIGNAL_RULES,
    repos: names.map((repo, repoIndex) => ({
      repo,
      issues: Array.from({ length: sizes[repoIndex] ?? 0 }, (_, position): BacklogIssue => {
        const number = position + 1;
        // About one issue in four is not eligible: a question, a feature request or one already claimed.
        const kind = (number * 31 + repoIndex) % 12;
        return {
          number,
          title: `Crash in module ${number % 997} when input ${number} is empty`,
          labels: kind === 1 ? question : kind === 2 ? enhancement : bug,
          author: authors[(number + repoIndex) % authors.length] ?? 'user0',
          createdAt: '2026-09-01T12:00:00Z',
          updatedAt: '2026-09-20T08:30:00Z',
          comments: number % 9,
          claimedBy: kind === 3 ? [100_000 + number] : none,
          signals: kind === 1 ? asking : reproduced,
        };
      }),
    })),
  };
}

const generation = measured(syntheticSnapshot);
const snapshot = generation.value;
const optOuts: ReadonlySet<string> = new Set([snapshot.repos[3]?.repo ?? '']);
const registryDigest = `sha256:${'0'.repeat(64)}`;

const floor = measured(() => {
  let characters = 0;
  for (const entry of snapshot.repos)
    for (const issue of entry.issues) characters += issue.title.length + issue.labels.length;
  return characters;
});

const parts = { digestMs: 0, eligibilityMs: 0, selectionMs: 0 };
const drawn = measured(() => {
  let started = performance.now();
  const digest = snapshotDigest(snapshot);
  parts.digestMs = performance.now() - started;
  started = performance.now();
  const { pool, rules } = eligiblePool(snapshot, { optOuts });
  parts.eligibilityMs = performance.now() - started;
  started = performance.now();
  const built = buildDrawRecord({
    seed,
    count: picks,
    drawnAt: '2026-10-03T00:00:00Z',
    registryVersion: snapshot.registryVersion,
    registryDigest,
    snapshotDigest: digest,
    eligibilityRules: rules,
    optOuts,
    pool,
  });
  parts.selectionMs = performance.now() - started;
  return built;
});
const record = drawn.value;
const audited = measured(() =>
  auditDraw({ record: JSON.parse(drawRecordText(record)) as unknown, snapshot, optOuts, registryDigest }),
);

const home = await mkdtemp(join(tmpdir(), 'abp-bench-draw-'));
let fileLine: string;
try {
  const file = join(home, 'backlog.jsonl');
  const written = performance.now();
  await writeSnapshot(file, snapshot);
  const writeMs = performance.now() - written;
  const read = performance.now();
  const reread = await readSnapshot(file);
  const readMs = performance.now() - read;
  fileLine = `${writeMs.toFixed(0)} ms to write, ${readMs.toFixed(0)} ms to read and validate (${reread.repos.length} repositories)`;
} finally {
  await rm(home, { recursive: true, force: true });
}

const verdict = (ms: number, bytes: number) =>
  `${ms < timeTargetMs ? 'met' : 'MISSED'} / ${bytes < peakTargetBytes ? 'met' : 'MISSED'}`;
console.log(
  `snapshot: ${snapshot.repos.length} repositories, ${issueCount.toLocaleString('en-US')} issues (${record.backlogSnapshot.issues.toLocaleString('en-US')} eligible in ${record.backlogSnapshot.repos} repositories), seed ${seed}`,
);
console.log(`generation:        ${generation.ms.toFixed(0)} ms, peak ${mib(generation.peakBytes)}`);
console.log(`baseline:          ${floor.ms.toFixed(0)} ms for one pass over every issue`);
console.log(
  `draw of ${picks}:       ${drawn.ms.toFixed(0)} ms, peak ${mib(drawn.peakBytes)} (${(drawn.ms / floor.ms).toFixed(1)}x baseline; ${record.picks.length} picks, ${record.id})`,
);
console.log(
  `  of which:        snapshot digest ${parts.digestMs.toFixed(0)} ms, eligibility ${parts.eligibilityMs.toFixed(0)} ms, selection and record ${parts.selectionMs.toFixed(1)} ms`,
);
console.log(
  `audit:             ${audited.ms.toFixed(0)} ms, peak ${mib(audited.peakBytes)} (${audited.value.match ? 'match' : `MISMATCH: ${audited.value.firstDifference}`})`,
);
console.log(`snapshot file:     ${fileLine} (not counted)`);
console.log(`target draw < 2 s / peak < 1 GiB:  ${verdict(drawn.ms, drawn.peakBytes)}`);
console.log(`target audit < 2 s / peak < 1 GiB: ${verdict(audited.ms, audited.peakBytes)}`);
if (!audited.value.match || record.picks.length !== picks) process.exitCode = 1;
