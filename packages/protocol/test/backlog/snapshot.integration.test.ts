// The abp-backlog/v1 file: canonical lines (the fast serializer against canonicalJson, and an independent Python
// re-serialization of the documented recipe), digest = sha256 of the file, atomic writes, and a reader that refuses
// every kind of damage with the file, line and field.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BacklogError } from '../../src/backlog/errors.js';
import { readSnapshot, readSnapshotWithDigest, snapshotDigest, writeSnapshot } from '../../src/backlog/snapshot.js';
import type { BacklogIssue, BacklogSnapshot } from '../../src/backlog/types.js';
import { canonicalJson } from '../../src/schemas/canonical-json.js';

const run = promisify(execFile);

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'abp-backlog-snapshot-'));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function issue(number: number, overrides: Partial<BacklogIssue> = {}): BacklogIssue {
  return {
    number,
    title: `Issue ${number} crashes`,
    labels: ['bug'],
    author: 'ada',
    createdAt: '2026-10-02T09:00:00Z',
    updatedAt: '2026-10-30T17:45:12Z',
    comments: 2,
    claimedBy: [],
    signals: { reproduction: true, question: false, proposal: false },
    ...overrides,
  };
}

function snapshot(overrides: Partial<BacklogSnapshot> = {}): BacklogSnapshot {
  return {
    schema: 'abp-backlog/v1',
    registryVersion: 'abp-registry/2026Q4',
    takenAt: '2026-11-01T00:01:00Z',
    signalRules: 'abp-body-signals/1',
    repos: [
      { repo: 'acme/empty', issues: [] },
      {
        repo: 'acme/widget',
        issues: [issue(7, { labels: ['bug', 'help wanted'] }), issue(12, { claimedBy: [15, 31] })],
      },
      { repo: 'zeta/tool', issues: [issue(1)] },
    ],
    ...overrides,
  };
}

/** The worked example of docs/eligibility.md §2.1. */
const documented: BacklogSnapshot = snapshot({
  repos: [
    { repo: 'acme/empty', issues: [] },
    {
      repo: 'acme/widget',
      issues: [
        issue(7, { title: 'Parser crashes on "ünïcode"', labels: ['bug', 'help wanted'], comments: 3 }),
        issue(12, {
          title: 'How do I stream large files?',
          labels: ['question'],
          author: 'bo',
          createdAt: '2026-10-20T11:00:00Z',
          updatedAt: '2026-10-21T08:00:00Z',
          comments: 1,
          claimedBy: [15],
          signals: { reproduction: false, question: true, proposal: false },
        }),
      ],
    },
  ],
});

/** Strings that stress JSON escaping: quotes, backslashes, controls, non-ASCII, astral characters, U+2028, a lone surrogate. */
const awkward = [
  '"quoted" \\ back\\slash',
  'tab\tnew\nline\r\u0000\u001f\u007f',
  'ünïcödé 日本語 🐛',
  'line\u2028sep',
  'lone \ud800 surrogate',
  '',
];

async function codeOf(call: Promise<unknown>): Promise<{ code: string; line?: number; field?: string }> {
  const error = await call.then(
    () => null,
    (thrown: unknown) => thrown,
  );
  if (!(error instanceof BacklogError)) throw new Error(`expected a BacklogError, got ${String(error)}`);
  return { code: error.code, ...error.location };
}

function thrownBy(run: () => unknown): { code: string; field?: string } {
  try {
    run();
  } catch (error) {
    if (error instanceof BacklogError)
      return { code: error.code, ...(error.location.field === undefined ? {} : { field: error.location.field }) };
    throw error;
  }
  throw new Error('expected a BacklogError');
}

describe('the serialization and its digest', () => {
  it('writes the documented worked example byte for byte, with the documented digest', async () => {
    const file = path.join(dir, 'documented.jsonl');
    const digest = await writeSnapshot(file, documented);
    const doc = await readFile(new URL('../../../../docs/eligibility.md', import.meta.url), 'utf8');
    const text = await readFile(file, 'utf8');
    expect(doc).toContain(`\`\`\`\n${text}\`\`\``);
    expect(digest).toBe('sha256:83906d8a424a9ef808831503dfff3ba98856a4521d9fe8d0e3231416e8702718');
    expect(doc).toContain(digest);
  });

  it('writes each line as the canonical JSON of its object, and hashes exactly the file', async () => {
    const subject = snapshot({
      repos: [
        {
          repo: 'acme/odd',
          issues: awkward.map((text, index) =>
            issue(index + 1, { title: text, author: text || 'x', labels: [...new Set([text, 'bug', 'Zed'])].sort() }),
          ),
        },
      ],
    });
    const file = path.join(dir, 'awkward.jsonl');
    const digest = await writeSnapshot(file, subject);
    const bytes = await readFile(file);
    expect(digest).toBe(`sha256:${createHash('sha256').update(bytes).digest('hex')}`);
    expect(snapshotDigest(subject)).toBe(digest);
    const lines = bytes.toString('utf8').split('\n');
    expect(lines.pop()).toBe('');
    expect(lines).toHaveLength(1 + awkward.length);
    for (const line of lines) expect(line).toBe(canonicalJson(JSON.parse(line)));
    expect(JSON.parse(lines[0] as string)).toEqual({
      schema: 'abp-backlog/v1',
      registryVersion: 'abp-registry/2026Q4',
      takenAt: '2026-11-01T00:01:00Z',
      signalRules: 'abp-body-signals/1',
      repos: [{ repo: 'acme/odd', issues: awkward.length }],
    });
    expect(JSON.parse(lines[1] as string)).toEqual({ repo: 'acme/odd', ...subject.repos[0]?.issues[0] });
  });

  it("matches the documented Python recipe's digest, computed independently from the parsed lines", async () => {
    const file = path.join(dir, 'python.jsonl');
    const digest = await writeSnapshot(
      file,
      snapshot({
        repos: [
          { repo: 'acme/odd', issues: awkward.slice(0, 4).map((text, index) => issue(index + 1, { title: text })) },
        ],
      }),
    );
    const recipe = [
      'import hashlib, json, sys',
      'h = hashlib.sha256()',
      'for line in open(sys.argv[1], encoding="utf-8"):',
      '    h.update((json.dumps(json.loads(line), sort_keys=True, separators=(",", ":"), ensure_ascii=False) + "\\n").encode())',
      'print("sha256:" + h.hexdigest())',
    ].join('\n');
    const { stdout } = await run('python3', ['-c', recipe, file]);
    expect(stdout.trim()).toBe(digest);
  });

  it('gives the same digest for the same content and a different one for any change', () => {
    const base = snapshotDigest(snapshot());
    expect(snapshotDigest(snapshot())).toBe(base);
    expect(snapshotDigest(structuredClone(snapshot()))).toBe(base);
    const widget = (issues: BacklogIssue[]): BacklogSnapshot =>
      snapshot({
        repos: [
          { repo: 'acme/empty', issues: [] },
          { repo: 'acme/widget', issues },
          { repo: 'zeta/tool', issues: [issue(1)] },
        ],
      });
    const variants = [
      snapshot({ takenAt: '2026-11-01T00:01:01Z' }),
      snapshot({ registryVersion: 'abp-registry/2027Q1' }),
      snapshot({ signalRules: 'abp-body-signals/2' }),
      snapshot({ repos: snapshot().repos.slice(1) }),
      widget([issue(7, { labels: ['bug', 'help wanted'] }), issue(12, { claimedBy: [15] })]),
      widget([issue(7, { labels: ['bug'] }), issue(12, { claimedBy: [15, 31] })]),
      widget([
        issue(7, { labels: ['bug', 'help wanted'], title: 'Issue 7 crashes!' }),
        issue(12, { claimedBy: [15, 31] }),
      ]),
      widget([
        issue(7, { labels: ['bug', 'help wanted'], signals: { reproduction: true, question: true, proposal: false } }),
        issue(12, { claimedBy: [15, 31] }),
      ]),
      widget([issue(7, { labels: ['bug', 'help wanted'], comments: 3 }), issue(12, { claimedBy: [15, 31] })]),
    ];
    const digests = variants.map(snapshotDigest);
    expect(new Set([base, ...digests]).size).toBe(variants.length + 1);
  });

  it('refuses a snapshot out of order or with a malformed field, naming the field', () => {
    const widget = (issues: BacklogIssue[]): BacklogSnapshot => snapshot({ repos: [{ repo: 'acme/widget', issues }] });
    expect(thrownBy(() => snapshotDigest(snapshot({ repos: [...snapshot().repos].reverse() })))).toEqual({
      code: 'invalid-snapshot',
      field: 'repos',
    });
    expect(
      thrownBy(() =>
        snapshotDigest(
          snapshot({
            repos: [
              { repo: 'a/b', issues: [] },
              { repo: 'a/b', issues: [] },
            ],
          }),
        ),
      ),
    ).toEqual({ code: 'invalid-snapshot', field: 'repos' });
    expect(thrownBy(() => snapshotDigest(widget([issue(2), issue(2)])))).toEqual({
      code: 'invalid-snapshot',
      field: 'number',
    });
    expect(thrownBy(() => snapshotDigest(widget([issue(0)])))).toEqual({ code: 'invalid-snapshot', field: 'number' });
    expect(thrownBy(() => snapshotDigest(widget([issue(1, { labels: ['help wanted', 'bug'] })])))).toEqual({
      code: 'invalid-snapshot',
      field: 'labels',
    });
    expect(thrownBy(() => snapshotDigest(widget([issue(1, { claimedBy: [4, 4] })])))).toEqual({
      code: 'invalid-snapshot',
      field: 'claimedBy',
    });
    expect(thrownBy(() => snapshotDigest(widget([issue(1, { createdAt: '2026-10-02T09:00:00.123Z' })])))).toEqual({
      code: 'invalid-snapshot',
      field: 'createdAt',
    });
    expect(thrownBy(() => snapshotDigest(widget([issue(1, { comments: 1.5 })])))).toEqual({
      code: 'invalid-snapshot',
      field: 'comments',
    });
    expect(thrownBy(() => snapshotDigest(widget([issue(1, { author: '' })])))).toEqual({
      code: 'invalid-snapshot',
      field: 'author',
    });
    expect(thrownBy(() => snapshotDigest(snapshot({ registryVersion: '2026Q4' })))).toEqual({
      code: 'invalid-snapshot',
      field: 'registryVersion',
    });
    expect(thrownBy(() => snapshotDigest(snapshot({ repos: [{ repo: 'not a repo', issues: [] }] })))).toEqual({
      code: 'invalid-snapshot',
      field: 'repos.0.repo',
    });
  });
});

describe('writing', () => {
  it('reads back what it wrote, equal in content and digest', async () => {
    const file = path.join(dir, 'round-trip.jsonl');
    const original = snapshot({
      repos: [
        ...snapshot().repos,
        { repo: 'zeta/unicode', issues: awkward.map((text, index) => issue(index + 1, { title: text })) },
      ],
    });
    const digest = await writeSnapshot(file, original);
    const read = await readSnapshotWithDigest(file);
    expect(read).toEqual({ snapshot: original, digest });
    expect(snapshotDigest(read.snapshot)).toBe(digest);
  });

  it('reads files of many chunks, with characters and lines across chunk boundaries', async () => {
    const file = path.join(dir, 'large.jsonl');
    // About 4 MiB of two-, three- and four-byte characters, and one line longer than a read chunk (1 MiB).
    const many = Array.from({ length: 3_000 }, (_, index) =>
      issue(index + 1, { title: `${index} ${'ü日🐛'.repeat(150 + (index % 7))}` }),
    );
    const original = snapshot({
      repos: [{ repo: 'acme/huge', issues: [...many, issue(5_000, { title: 'x'.repeat(1_500_000) })] }],
    });
    const digest = await writeSnapshot(file, original);
    expect(await readSnapshotWithDigest(file)).toEqual({ snapshot: original, digest });
  });

  it('replaces a file atomically and leaves the old one whole when a write fails', async () => {
    const sub = await mkdtemp(path.join(dir, 'atomic-'));
    const file = path.join(sub, 'backlog.jsonl');
    await writeSnapshot(file, snapshot());
    const before = await readFile(file);
    // Refused during serialization (its last repository is out of order), once the temporary file exists.
    const broken = snapshot({ repos: [...snapshot().repos, { repo: 'acme/aardvark', issues: [] }] });
    expect(await codeOf(writeSnapshot(file, broken))).toMatchObject({ code: 'invalid-snapshot' });
    expect(await readFile(file)).toEqual(before);
    expect(await readdir(sub)).toEqual(['backlog.jsonl']);
    await writeSnapshot(file, documented);
    expect(await readdir(sub)).toEqual(['backlog.jsonl']);
    expect(await readSnapshot(file)).toEqual(documented);
  });

  it('names the path when the folder is missing', async () => {
    expect(await codeOf(writeSnapshot(path.join(dir, 'no-such-folder', 'b.jsonl'), snapshot()))).toMatchObject({
      code: 'snapshot-io',
      file: path.join(dir, 'no-such-folder', 'b.jsonl'),
    });
  });
});

describe('reading a damaged file', () => {
  let good: string[];

  beforeAll(async () => {
    const file = path.join(dir, 'good.jsonl');
    await writeSnapshot(file, snapshot());
    good = (await readFile(file, 'utf8')).split('\n').slice(0, -1);
  });

  async function readText(
    name: string,
    text: string | Buffer,
  ): Promise<{ code: string; line?: number; field?: string; file?: string }> {
    const file = path.join(dir, name);
    await writeFile(file, text);
    return codeOf(readSnapshot(file));
  }

  const lines = (edit: (lines: string[]) => string[]): string => `${edit([...good]).join('\n')}\n`;
  const replace = (index: number, change: (value: Record<string, unknown>) => Record<string, unknown>) =>
    lines((all) =>
      all.map((line, at) => (at === index ? canonicalJson(change(JSON.parse(line) as Record<string, unknown>)) : line)),
    );

  it('reads the undamaged file', async () => {
    const file = path.join(dir, 'undamaged.jsonl');
    await writeFile(
      file,
      lines((all) => all),
    );
    expect(await readSnapshot(file)).toEqual(snapshot());
  });

  it('refuses a line that is not JSON', async () => {
    expect(
      await readText(
        'not-json.jsonl',
        lines((all) => all.map((line, at) => (at === 2 ? line.slice(0, -1) : line))),
      ),
    ).toMatchObject({ code: 'invalid-snapshot', line: 3, field: '', file: path.join(dir, 'not-json.jsonl') });
  });

  it('refuses a line that is JSON but not canonical', async () => {
    expect(
      await readText(
        'spaced.jsonl',
        lines((all) =>
          all.map((line, at) => (at === 1 ? JSON.stringify(JSON.parse(line), null, 1).replace(/\n/g, ' ') : line)),
        ),
      ),
    ).toMatchObject({ code: 'invalid-snapshot', line: 2 });
    expect(
      await readText(
        'header-spaced.jsonl',
        lines((all) => [all[0]?.replace(':', ': ') ?? '', ...all.slice(1)]),
      ),
    ).toMatchObject({ code: 'invalid-snapshot', line: 1 });
    expect(
      await readText(
        'crlf.jsonl',
        lines((all) => all.map((line) => `${line}\r`)),
      ),
    ).toMatchObject({ code: 'invalid-snapshot', line: 1 });
  });

  it('refuses an extra, a missing or a mistyped field', async () => {
    expect(
      await readText(
        'extra.jsonl',
        replace(1, (value) => ({ ...value, body: 'kept by mistake' })),
      ),
    ).toMatchObject({ code: 'invalid-snapshot', line: 2 });
    expect(
      await readText(
        'missing.jsonl',
        replace(1, ({ author: _author, ...value }) => value),
      ),
    ).toMatchObject({ code: 'invalid-snapshot', line: 2, field: 'author' });
    expect(
      await readText(
        'mistyped.jsonl',
        replace(1, (value) => ({ ...value, number: '7' })),
      ),
    ).toMatchObject({ code: 'invalid-snapshot', line: 2, field: 'number' });
    expect(
      await readText(
        'label-type.jsonl',
        replace(1, (value) => ({ ...value, labels: [5] })),
      ),
    ).toMatchObject({ code: 'invalid-snapshot', line: 2, field: 'labels' });
    expect(
      await readText(
        'time.jsonl',
        replace(2, (value) => ({ ...value, updatedAt: '2026-10-30 17:45:12' })),
      ),
    ).toMatchObject({ code: 'invalid-snapshot', line: 3, field: 'updatedAt' });
    expect(
      await readText(
        'header-field.jsonl',
        replace(0, (value) => ({ ...value, registryVersion: 'q4' })),
      ),
    ).toMatchObject({ code: 'invalid-snapshot', line: 1, field: 'registryVersion' });
  });

  it('refuses lines out of order, unsorted labels, and counts that disagree with the header', async () => {
    expect(
      await readText(
        'swapped.jsonl',
        lines((all) => [all[0] ?? '', all[2] ?? '', all[1] ?? '', ...all.slice(3)]),
      ),
    ).toMatchObject({ code: 'invalid-snapshot', line: 3, field: 'number' });
    expect(
      await readText(
        'labels.jsonl',
        replace(1, (value) => ({ ...value, labels: ['help wanted', 'bug'] })),
      ),
    ).toMatchObject({ code: 'invalid-snapshot', line: 2, field: 'labels' });
    expect(
      await readText(
        'dropped-line.jsonl',
        lines((all) => [all[0] ?? '', ...all.slice(2)]),
      ),
    ).toMatchObject({ code: 'invalid-snapshot', line: 3, field: 'repos.1.issues' });
    expect(
      await readText(
        'short-tail.jsonl',
        lines((all) => all.slice(0, -1)),
      ),
    ).toMatchObject({ code: 'invalid-snapshot', field: 'repos.2.issues' });
    expect(
      await readText(
        'stranger.jsonl',
        replace(3, (value) => ({ ...value, repo: 'aaa/first' })),
      ),
    ).toMatchObject({ code: 'invalid-snapshot', line: 4, field: 'repo' });
    expect(
      await readText(
        'header-order.jsonl',
        replace(0, (value) => ({ ...value, repos: [...(value['repos'] as unknown[])].reverse() })),
      ),
    ).toMatchObject({ code: 'invalid-snapshot', line: 1, field: 'repos.1.repo' });
  });

  it('refuses a truncated file, bytes that are not UTF-8, an empty file, and a missing one', async () => {
    const whole = lines((all) => all);
    expect(await readText('truncated.jsonl', whole.slice(0, -10))).toMatchObject({
      code: 'invalid-snapshot',
      line: good.length,
    });
    const bytes = Buffer.from(whole, 'utf8');
    const broken = Buffer.concat([
      bytes.subarray(0, bytes.indexOf('Issue 12') + 3),
      Buffer.from([0xff]),
      bytes.subarray(bytes.indexOf('Issue 12') + 4),
    ]);
    expect(await readText('latin1.jsonl', broken)).toMatchObject({ code: 'invalid-snapshot' });
    expect(await readText('empty.jsonl', '')).toMatchObject({ code: 'invalid-snapshot', line: 1 });
    expect(await codeOf(readSnapshot(path.join(dir, 'absent.jsonl')))).toMatchObject({
      code: 'snapshot-io',
      file: path.join(dir, 'absent.jsonl'),
    });
  });
});
