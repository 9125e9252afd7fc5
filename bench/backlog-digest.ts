// How long the backlog snapshot digest takes over 500 repositories × 2,000 open issues (1,000,000 issue lines), and
// the peak memory of the process holding that snapshot, against targets of 2 s and 1 GiB; then the same for writing
// the snapshot file and reading it back with full validation (digest included), which have no target and are
// reported for scale.
//   node bin/run-ts.js bench/backlog-digest.ts
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SIGNAL_RULES } from '@abp/protocol/backlog/body-signals';
import { readSnapshotWithDigest, snapshotDigest, writeSnapshot } from '@abp/protocol/backlog/snapshot';
import type { BacklogIssue, BacklogSnapshot } from '@abp/protocol/backlog/types';
import { BACKLOG_SCHEMA_ID } from '@abp/protocol/backlog/types';

const repoCount = 500;
const issuesPerRepo = 2_000;
const digestTargetMs = 2_000;
const peakTargetBytes = 1024 ** 3;

const labelSets: readonly string[][] = [
  [],
  ['bug'],
  ['bug', 'help wanted'],
  ['enhancement'],
  ['question'],
  ['type: bug'],
  ['kind/bug', 'triage/accepted'],
];
const words = [
  'parser',
  'router',
  'cache',
  'crashes',
  'hangs',
  'with',
  'unicode',
  'input',
  'nested',
  'arrays',
  'Windows',
  'paths',
];

function mib(bytes: number): string {
  return `${(bytes / 1024 ** 2).toFixed(0)} MiB`;
}

/** A flat string, as JSON.parse makes them: template literals build ropes that V8 flattens (and keeps) on first read. */
function flat(...parts: Array<string | number>): string {
  return parts.join('');
}

/** Issues shaped like a real backlog: distinct titles and times, a few label sets, some claims. */
function syntheticSnapshot(): BacklogSnapshot {
  const repos: BacklogSnapshot['repos'] = [];
  for (let r = 0; r < repoCount; r++) {
    const issues: BacklogIssue[] = [];
    for (let n = 1; n <= issuesPerRepo; n++) {
      const k = r * issuesPerRepo + n;
      const day = String(1 + (k % 28)).padStart(2, '0');
      issues.push({
        number: n * 3,
        title: flat(
          words[k % words.length] ?? '',
          ' ',
          words[(k >> 3) % words.length] ?? '',
          ' ',
          words[(k >> 6) % words.length] ?? '',
          ' in case ',
          k,
        ),
        labels: labelSets[k % labelSets.length] ?? [],
        author: flat('user', k % 40_000),
        createdAt: flat('2025-10-', day, 'T12:', String(k % 60).padStart(2, '0'), ':00Z'),
        updatedAt: flat('2026-10-', day, 'T08:00:', String(k % 60).padStart(2, '0'), 'Z'),
        comments: k % 17,
        claimedBy: k % 23 === 0 ? [n * 3 + 1] : [],
        signals: { reproduction: k % 2 === 0, question: k % 7 === 0, proposal: k % 5 === 0 },
      });
    }
    repos.push({ repo: flat('owner', String(r).padStart(3, '0'), '/project-', r), issues });
  }
  return {
    schema: BACKLOG_SCHEMA_ID,
    registryVersion: 'abp-registry/2026Q4',
    takenAt: '2026-11-01T00:00:00Z',
    signalRules: SIGNAL_RULES,
    repos,
  };
}

let peak = 0;
const sampler = setInterval(() => {
  peak = Math.max(peak, process.memoryUsage().rss);
}, 10);

function timed<T>(run: () => T): { value: T; ms: number } {
  const started = performance.now();
  const value = run();
  peak = Math.max(peak, process.memoryUsage().rss);
  return { value, ms: performance.now() - started };
}

const built = timed(syntheticSnapshot);
const snapshot = built.value;
const digest = timed(() => snapshotDigest(snapshot));
const again = timed(() => snapshotDigest(snapshot));
const digestPeak = peak;

const dir = await mkdtemp(join(tmpdir(), 'abp-bench-backlog-'));
try {
  const file = join(dir, 'backlog.jsonl');
  let started = performance.now();
  const written = await writeSnapshot(file, snapshot);
  const writeMs = performance.now() - started;
  const { size } = await stat(file);
  started = performance.now();
  const read = await readSnapshotWithDigest(file);
  const readMs = performance.now() - started;
  peak = Math.max(peak, process.memoryUsage().rss);
  clearInterval(sampler);

  const issues = repoCount * issuesPerRepo;
  const digestMs = Math.min(digest.ms, again.ms);
  console.log(
    `snapshot: ${repoCount} repositories × ${issuesPerRepo} issues = ${issues.toLocaleString('en-US')} issue lines (built in ${built.ms.toFixed(0)} ms)`,
  );
  console.log(
    `digest: ${digestMs.toFixed(0)} ms (best of two runs; the first took ${digest.ms.toFixed(0)} ms), ${digest.value}; target < ${digestTargetMs} ms ${digestMs < digestTargetMs ? 'met' : 'MISSED'}`,
  );
  console.log(
    `peak memory while building and digesting: ${mib(digestPeak)}; target < ${mib(peakTargetBytes)} ${digestPeak < peakTargetBytes ? 'met' : 'MISSED'}`,
  );
  console.log(
    `write: ${writeMs.toFixed(0)} ms, ${mib(size)} file, digest ${written === digest.value ? 'equal' : 'DIFFERENT'}`,
  );
  const readIssues = read.snapshot.repos.reduce((sum, entry) => sum + entry.issues.length, 0);
  console.log(
    `read, validate and hash: ${readMs.toFixed(0)} ms, ${readIssues.toLocaleString('en-US')} issues, digest ${read.digest === digest.value ? 'equal' : 'DIFFERENT'}; peak memory overall ${mib(peak)}`,
  );
  if (
    written !== digest.value ||
    read.digest !== digest.value ||
    digest.value !== again.value ||
    digestMs >= digestTargetMs ||
    digestPeak >= peakTargetBytes
  )
    process.exitCode = 1;
} finally {
  clearInterval(sampler);
  await rm(dir, { recursive: true, force: true });
}
