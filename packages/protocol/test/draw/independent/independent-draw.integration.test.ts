// An audit of abp-draw/v1: abp_draw.py, written from docs/draw-algorithm.md alone, run as a real python3 process and
// compared with the project's selection, generator and record on the document's examples and on generated pools.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { DrawError } from '../../../src/draw/errors.js';
import { buildDrawRecord, drawRecordText, optOutsDigest } from '../../../src/draw/record.js';
import type { DrawInputs } from '../../../src/draw/record.js';
import { drawStream, selectIssues, uniformIndex } from '../../../src/draw/select.js';
import type { Pick } from '../../../src/draw/select.js';
import { exampleInputs, examplePool } from '../pools.js';
import { seededRandom } from '../../../../../test-support/seeded-random.js';

const SCRIPT = fileURLToPath(new URL('./abp_draw.py', import.meta.url));

interface PoolIssue {
  number: number;
  title: string;
}
interface Pool {
  repos: { repo: string; issues: PoolIssue[] }[];
}
interface Refusal {
  error: { code: string; message: string };
}

/** Runs abp_draw.py once on a batch of requests; one process keeps the suite fast. */
function runPython(requests: readonly object[]): Promise<unknown[]> {
  return new Promise((resolve, reject) => {
    const child = spawn('python3', [SCRIPT], { stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) reject(new Error(`abp_draw.py exited ${code}: ${Buffer.concat(err).toString('utf8')}`));
      else resolve(JSON.parse(Buffer.concat(out).toString('utf8')) as unknown[]);
    });
    child.stdin.end(JSON.stringify(requests));
  });
}

/** The project's answer to the same request, in the script's shape: the picks, or the refusal's code. */
function projectPicks(pool: Pool, seed: number, count: number): Pick[] | { error: { code: string } } {
  try {
    return selectIssues(pool, { seed, count });
  } catch (error) {
    if (error instanceof DrawError) return { error: { code: error.code } };
    throw error;
  }
}

function refusalCode(answer: unknown): string | undefined {
  return (answer as Partial<Refusal>).error?.code;
}

/** A draw answer of abp_draw.py in the project's shape: its picks, or its refusal as is. */
function pythonPicks(answer: unknown): unknown {
  return (answer as { picks?: Pick[] }).picks ?? answer;
}

const FIXED_SEEDS = [
  0,
  1,
  2,
  9,
  11,
  42,
  99,
  424242,
  4242,
  2 ** 31 - 1,
  2 ** 31,
  2 ** 32 - 1,
  2 ** 32,
  2 ** 32 + 1,
  10 ** 12,
  10 ** 15,
  2 ** 53 - 2,
  2 ** 53 - 1,
];
const TITLES = [
  'Crash on launch',
  'Leak in “cache” for "ü" keys',
  'Backslash \\ in path breaks C:\\temp',
  'Emoji 🚀 title with 日本語',
  'Off-by-one in pager',
  '<script>alert(1)</script> & friends',
  'Trailing space ',
  "Apostrophe's edge",
];
// Characters GitHub allows, chosen so that code-unit order differs from case-insensitive or locale order.
const OWNER_CHARS = 'abcXYZ019-';
const NAME_CHARS = 'abcXYZ019-._';

function drawSeeds(total: number): number[] {
  const random = seededRandom(20261003);
  const seeds = [...FIXED_SEEDS];
  while (seeds.length < total) {
    const bits = random() < 0.5 ? 2 ** 21 : 2 ** 1; // half above 2^32, up to 2^53 - 1
    seeds.push(Math.floor(random() * bits) * 2 ** 32 + Math.floor(random() * 2 ** 32));
  }
  return seeds;
}

function repoNames(random: () => number, n: number): string[] {
  const names = new Set<string>();
  while (names.size < n) {
    const part = (chars: string, len: number) =>
      Array.from({ length: len }, () => chars[Math.floor(random() * chars.length)]).join('');
    // An owner starts with a letter or digit; a name of only dots is not a repository.
    names.add(
      `${part(OWNER_CHARS.slice(0, 9), 1)}${part(OWNER_CHARS, Math.floor(random() * 3))}/${part(NAME_CHARS.slice(0, 9), 1)}${part(NAME_CHARS, Math.floor(random() * 4))}`,
    );
  }
  return [...names].sort(); // the default sort is code-unit order, which the pool must follow
}

function issues(random: () => number, n: number): PoolIssue[] {
  let number = 0;
  return Array.from({ length: n }, () => {
    number += 1 + Math.floor(random() < 0.1 ? random() * 1_000_000 : random() * 5);
    return { number, title: TITLES[Math.floor(random() * TITLES.length)] ?? 'x' };
  });
}

/** Pool shapes in turn: one issue, one repository, many one-issue repositories, uneven sizes, some empty repositories. */
function drawPool(random: () => number, shape: number): Pool {
  const sizes: number[] = [];
  switch (shape % 6) {
    case 0:
      sizes.push(1);
      break;
    case 1:
      sizes.push(1 + Math.floor(random() * 300));
      break;
    case 2:
      for (let k = 0, n = 20 + Math.floor(random() * 100); k < n; k++) sizes.push(1);
      break;
    case 3:
      for (let k = 0, n = 2 + Math.floor(random() * 40); k < n; k++)
        sizes.push(random() < 0.3 ? 1 : 1 + Math.floor(random() * 5));
      break;
    case 4:
      for (let k = 0, n = 2 + Math.floor(random() * 15); k < n; k++)
        sizes.push(random() < 0.5 ? 1 : 50 + Math.floor(random() * 350));
      break;
    default:
      for (let k = 0, n = 3 + Math.floor(random() * 10); k < n; k++) sizes.push(Math.floor(random() * 4)); // 0 = no eligible issue
  }
  if (!sizes.some((size) => size > 0)) sizes[0] = 1;
  const names = repoNames(random, sizes.length);
  return { repos: names.map((repo, k) => ({ repo, issues: issues(random, sizes[k] ?? 1) })) };
}

function drawCount(random: () => number, total: number, index: number): number {
  switch (index % 5) {
    case 0:
      return 1;
    case 1:
      return 1 + Math.floor(random() * total);
    case 2:
      return total;
    case 3:
      return total + 1 + Math.floor(random() * 20); // more than the pool holds
    default:
      return 1 + Math.floor(random() * 12);
  }
}

// The worked example of docs/draw-algorithm.md (§5, §6.4): the pool and the record inputs but the pool and opt-outs.
const WORKED_POOL: Pool = examplePool();
const { seed, count, drawnAt, registryVersion, registryDigest, snapshotDigest, eligibilityRules } = exampleInputs();
const WORKED_RECORD = { seed, count, drawnAt, registryVersion, registryDigest, snapshotDigest, eligibilityRules };
// §6.4 of the document, verbatim (its line breaks removed).
const WORKED_TEXT =
  '{"algorithm":"abp-draw/v1","backlogSnapshot":{"digest":"sha256:2222222222222222222222222222222222222222222222222222222222222222","issues":6,"repos":3},' +
  '"digest":"sha256:3934e8f022fa04dfaf9ae8948a4c283ff6dfab880b59bee4b84a74d3198406e5","drawnAt":"2026-10-03T00:00:00Z",' +
  '"eligibilityRules":"abp-eligibility/1","id":"draw-2026Q4-424242-455a6e914de6",' +
  '"inputDigests":{"backlog":"sha256:2222222222222222222222222222222222222222222222222222222222222222","optOuts":"sha256:9d5b1a05babcb477d00403ce21b1278b78ad36cc453a5c39d0c900767995d3d0","registry":"sha256:1111111111111111111111111111111111111111111111111111111111111111"},' +
  '"picks":[{"issue":205,"issueUrl":"https://github.com/gamma/lib/issues/205","order":1,"repo":"gamma/lib","title":"Leak in “cache” for \\"ü\\" keys"},' +
  '{"issue":100,"issueUrl":"https://github.com/gamma/lib/issues/100","order":2,"repo":"gamma/lib","title":"Wrong rounding"},' +
  '{"issue":7,"issueUrl":"https://github.com/acme/rocket/issues/7","order":3,"repo":"acme/rocket","title":"Crash on launch"},' +
  '{"issue":3,"issueUrl":"https://github.com/beta/widget/issues/3","order":4,"repo":"beta/widget","title":"Off-by-one in pager"},' +
  '{"issue":11,"issueUrl":"https://github.com/beta/widget/issues/11","order":5,"repo":"beta/widget","title":"Tooltip flickers"},' +
  '{"issue":42,"issueUrl":"https://github.com/beta/widget/issues/42","order":6,"repo":"beta/widget","title":"Null deref on save"}],' +
  '"registryVersion":"abp-registry/2026Q4","requested":10,"schema":"abp-draw/v1","seed":424242}\n';

const hex = (bytes: number[]) => bytes.map((b) => b.toString(16).padStart(2, '0')).join(' ');

describe('the independent Python draw, from the document alone', () => {
  it('reproduces every check value of the document (§2.4, §2.6, §3, §6.1)', async () => {
    const [trace, values, zero, rc4, indices, optedOut, none] = (await runPython([
      { seed: 424242, trace: true },
      { seed: 424242, values: 14 },
      { seed: 0, values: 1 },
      { rc4Key: 'Key', bytes: 10 },
      { seed: 424242, indices: [3_000_000_000, 3_000_000_000] },
      { optOuts: ['opted/out'] },
      { optOuts: [] },
    ])) as [
      Record<string, unknown>,
      { values: number[] },
      { values: number[] },
      { bytes: number[] },
      { indices: number[] },
      { optOutsDigest: string },
      { optOutsDigest: string },
    ];
    expect(trace).toMatchObject({
      seedString: 'abp-draw/v1:424242',
      key: [97, 98, 112, 45, 100, 114, 97, 119, 47, 118, 49, 58, 52, 50, 52, 50, 52, 50],
      sFirst16: [97, 196, 133, 144, 34, 59, 79, 32, 159, 77, 11, 127, 50, 223, 20, 41],
      sLast4: [15, 122, 124, 218],
      scheduleJ: 210,
      iAfterDrop: 0,
      jAfterDrop: 183,
    });
    expect(hex(trace.droppedFirst8 as number[])).toBe('41 7c 92 36 6a 4f e2 96');
    expect(hex(trace.droppedLast4 as number[])).toBe('10 2d 98 e6');
    expect(hex(trace.first16 as number[])).toBe('96 97 ed 49 f6 6c 6b bf 1d 2e fc 44 13 df 95 4d');
    expect(values.values).toEqual([
      2526539081, 4134300607, 489618500, 333419853, 1888630870, 3516720054, 1504883645, 430176519, 141070297,
      3816981230, 1288491193, 339413024, 3177883601, 955528573,
    ]);
    expect(zero.values).toEqual([4289129752]);
    expect(hex(rc4.bytes)).toBe('eb 9f 77 81 b7 34 ca 72 a7 19');
    expect(indices.indices).toEqual([2526539081, 489618500]);
    expect(optedOut.optOutsDigest).toBe('sha256:9d5b1a05babcb477d00403ce21b1278b78ad36cc453a5c39d0c900767995d3d0');
    expect(none.optOutsDigest).toBe('sha256:4f53cda18c2baa0c0354bb5f9a3ecbe5ed12ab4d8e11ba873c2f11161202b945');
  });

  it('agrees with the document and the project on the worked example (§5, §6.4)', async () => {
    const optOuts = ['opted/out'];
    const [python] = (await runPython([{ ...WORKED_RECORD, pool: WORKED_POOL, optOuts }])) as [
      { picks: Pick[]; id: string; digest: string; text: string },
    ];
    const expected = [
      'gamma/lib#205',
      'gamma/lib#100',
      'acme/rocket#7',
      'beta/widget#3',
      'beta/widget#11',
      'beta/widget#42',
    ];
    expect(python.picks.map((p) => `${p.repo}#${p.number}`)).toEqual(expected);
    expect(python.id).toBe('draw-2026Q4-424242-455a6e914de6');
    expect(python.text).toBe(WORKED_TEXT);
    expect(selectIssues(WORKED_POOL, { seed: 424242, count: 10 })).toEqual(python.picks);
    const record = buildDrawRecord({ ...WORKED_RECORD, optOuts: new Set(optOuts), pool: WORKED_POOL });
    expect(drawRecordText(record)).toBe(python.text);
  });

  it('agrees with the project on the first 16 32-bit values of 300 seeds, and on uniform indices with rejection', async () => {
    const seeds = drawSeeds(300);
    // n values that reject often (2^31 + 1: about half), never (powers of two, 2^32), or as in §3 (3000000000).
    const ns = [1, 2, 3, 7, 500, 2 ** 31 + 1, 2 ** 31 + 1, 3_000_000_000, 2 ** 32, 2 ** 32 - 1, 1, 2 ** 31 + 1, 12345];
    const answers = await runPython(
      seeds.flatMap((seed) => [
        { seed, values: 16 },
        { seed, indices: ns },
      ]),
    );
    const mismatches: number[] = [];
    seeds.forEach((seed, k) => {
      const next = drawStream(seed);
      const values = Array.from({ length: 16 }, () => next());
      const stream = drawStream(seed);
      const indices = ns.map((n) => uniformIndex(stream, n));
      const pythonValues = (answers[2 * k] as { values: number[] }).values;
      const pythonIndices = (answers[2 * k + 1] as { indices: number[] }).indices;
      if (
        JSON.stringify(values) !== JSON.stringify(pythonValues) ||
        JSON.stringify(indices) !== JSON.stringify(pythonIndices)
      )
        mismatches.push(seed);
    });
    expect(mismatches).toEqual([]);
    expect(answers).toHaveLength(600);

    // The boundary u = limit, which random n almost never meets: for a first value u > 2^31, n = u makes limit = u, so
    // that value must be rejected (taking it would give index 0).
    const boundary = seeds.flatMap((seed, k) => {
      const first = (answers[2 * k] as { values: number[] }).values[0] ?? 0;
      return first > 2 ** 31 ? [{ seed, indices: [first] }] : [];
    });
    const atLimit = (await runPython(boundary)) as { indices: number[] }[];
    expect(atLimit.map((answer) => answer.indices[0])).toEqual(
      boundary.map(({ seed, indices }) => uniformIndex(drawStream(seed), indices[0] ?? 1)),
    );
    expect(atLimit.filter((answer) => answer.indices[0] === 0)).toEqual([]);
    expect(boundary.length).toBeGreaterThan(100);
  });

  it('agrees with the project on the picks of 300 generated draws', async () => {
    const random = seededRandom(424242);
    const cases = drawSeeds(300).map((seed, index) => {
      const pool = drawPool(random, index);
      const total = pool.repos.reduce((sum, repo) => sum + repo.issues.length, 0);
      return { seed, count: drawCount(random, total, index), pool };
    });
    const answers = await runPython(cases);
    const mismatches = cases.flatMap((c, k) =>
      JSON.stringify(projectPicks(c.pool, c.seed, c.count)) === JSON.stringify(pythonPicks(answers[k]))
        ? []
        : [{ case: k, seed: c.seed }],
    );
    expect(mismatches).toEqual([]);
    // The cases reach what they are meant to: a pool exhausted, single-issue pools, empty repositories, seeds above 2^32.
    const picked = answers.map((answer) => (answer as { picks: Pick[] }).picks);
    expect(cases.filter((c, k) => c.count > (picked[k]?.length ?? 0)).length).toBeGreaterThan(50);
    expect(cases.filter((c) => c.pool.repos.some((repo) => repo.issues.length === 0)).length).toBeGreaterThan(20);
    expect(cases.filter((c) => c.seed > 2 ** 32).length).toBeGreaterThan(100);
    expect(picked.reduce((sum, picks) => sum + picks.length, 0)).toBeGreaterThan(5000);
  });

  it('refuses what the project refuses: seeds out of range, a count below 1, a pool out of order', async () => {
    const one = (repo: string, ...numbers: number[]) => ({
      repo,
      issues: numbers.map((number) => ({ number, title: 't' })),
    });
    const cases = [
      { seed: -1, count: 1, pool: { repos: [one('a/b', 1)] } },
      { seed: 2 ** 53, count: 1, pool: { repos: [one('a/b', 1)] } },
      { seed: 1.5, count: 1, pool: { repos: [one('a/b', 1)] } },
      { seed: 1, count: 0, pool: { repos: [one('a/b', 1)] } },
      { seed: 1, count: 1, pool: { repos: [one('b/a', 1), one('a/b', 1)] } },
      { seed: 1, count: 1, pool: { repos: [one('a/b', 1), one('a/b', 2)] } },
      { seed: 1, count: 1, pool: { repos: [one('a/b', 2, 1)] } },
      { seed: 1, count: 1, pool: { repos: [one('a/b', 1, 1)] } },
      { seed: 1, count: 1, pool: { repos: [one('a/b', 1), one('A/b', 1)] } }, // 'A' (65) sorts before 'a' (97)
      // A repository without issues takes no part in the draw, yet still counts for the order: both refuse these.
      { seed: 1, count: 1, pool: { repos: [one('b/b', 1), one('a/a')] } },
      { seed: 1, count: 1, pool: { repos: [one('a/a'), one('a/a', 1)] } },
    ];
    const answers = await runPython(cases);
    const python = answers.map(refusalCode);
    expect(python).toEqual([
      'invalid-seed',
      'invalid-seed',
      'invalid-seed',
      'invalid-count',
      'unsorted-pool',
      'unsorted-pool',
      'unsorted-pool',
      'unsorted-pool',
      'unsorted-pool',
      'unsorted-pool',
      'unsorted-pool',
    ]);
    expect(cases.map((c) => refusalCode(projectPicks(c.pool, c.seed, c.count)))).toEqual(python);
  });

  it('agrees with the project on the id, digest and bytes of generated records', async () => {
    const random = seededRandom(7);
    const optOutLists = [[], ['opted/out'], ['Zeta/Repo', 'alpha/x', 'ZETA/repo', 'a-b/c'], ['B/b', 'a/a']];
    const cases = [0, 1, 42, 2 ** 32 - 1, 2 ** 53 - 1, 987654321012, 11, 5].map((seed, k) => ({
      seed,
      count: 1 + Math.floor(random() * 30),
      drawnAt: `2026-0${1 + k}-1${k}T12:34:56Z`,
      registryVersion: k % 2 ? 'abp-registry/2026Q4' : 'abp-registry/2027Q1',
      registryDigest: `sha256:${k.toString(16).repeat(64)}`,
      snapshotDigest: `sha256:${(15 - k).toString(16).repeat(64)}`,
      eligibilityRules: k % 3 ? 'abp-eligibility/1' : 'abp-eligibility/2',
      optOuts: optOutLists[k % optOutLists.length] ?? [],
      pool: drawPool(random, k + 3),
    }));
    const answers = (await runPython(cases)) as { id: string; digest: string; record: unknown; text: string }[];
    cases.forEach((c, k) => {
      const inputs: DrawInputs = { ...c, optOuts: new Set(c.optOuts) };
      const record = buildDrawRecord(inputs);
      expect(record).toEqual(answers[k]?.record);
      expect(drawRecordText(record)).toBe(answers[k]?.text);
      expect(optOutsDigest(inputs.optOuts)).toBe(
        answers[k]?.record && (answers[k].record as { inputDigests: { optOuts: string } }).inputDigests.optOuts,
      );
    });
    expect(new Set(answers.map((a) => a.id)).size).toBe(cases.length);
  });
});
