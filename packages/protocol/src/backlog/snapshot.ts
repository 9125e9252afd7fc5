// The abp-backlog/v1 snapshot file: a header line, then one line per open issue in (repo, number) order, every line
// RFC 8785 canonical JSON ending in "\n". The file's bytes are the canonical serialization, so its sha256 is the
// snapshot digest. Digest, atomic write and validating read; the format is specified in docs/eligibility.md.
import { createHash } from 'node:crypto';
import { isUtf8 } from 'node:buffer';
import { createReadStream } from 'node:fs';
import { z } from 'zod';
import { canonicalJson } from '../schemas/canonical-json.js';
import { nonNegativeInt, registryVersion, repoFullName } from '../schemas/primitives.js';
import { writeFileDurably } from '../files/durable-files.js';
import { BacklogError } from './errors.js';
import type { BacklogIssue, BacklogRepo, BacklogSnapshot } from './types.js';
import { BACKLOG_SCHEMA_ID } from './types.js';

/** GitHub's timestamp form: UTC, second precision. One spelling per instant keeps the digest a function of the data. */
const TIMESTAMP = /^\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])T(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\dZ$/;
export const backlogTimestamp = z
  .string()
  .regex(TIMESTAMP, { error: 'must be a UTC timestamp with second precision, e.g. "2026-11-01T00:00:00Z"' });
const rulesVersion = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._/-]*$/, { error: 'must name a rules version, e.g. "abp-body-signals/1"' });

const headerSchema = z.strictObject({
  schema: z.literal(BACKLOG_SCHEMA_ID),
  registryVersion,
  takenAt: backlogTimestamp,
  signalRules: rulesVersion,
  repos: z.array(z.strictObject({ repo: repoFullName, issues: nonNegativeInt })),
});
type SnapshotHeader = z.infer<typeof headerSchema>;

/** Lines are hashed and written in chunks of up to this many bytes: few calls, bounded memory. */
const CHUNK_BYTES = 1 << 20;
/** Lines are encoded in batches of about this many UTF-16 code units: small enough to die young. */
const BATCH_UNITS = 1 << 15;

function invalid(message: string, field: string): BacklogError {
  return new BacklogError('invalid-snapshot', message, { field });
}

function header(snapshot: BacklogSnapshot): SnapshotHeader {
  const value = {
    schema: snapshot.schema,
    registryVersion: snapshot.registryVersion,
    takenAt: snapshot.takenAt,
    signalRules: snapshot.signalRules,
    repos: snapshot.repos.map((entry) => ({ repo: entry.repo, issues: entry.issues.length })),
  };
  const checked = headerSchema.safeParse(value);
  if (!checked.success) {
    const problem = checked.error.issues[0];
    const field = problem?.path.join('.') ?? '';
    throw invalid(`snapshot header field ${field || '(root)'} ${problem?.message ?? 'is invalid'}`, field);
  }
  return checked.data;
}

function isSortedStrings(values: readonly unknown[]): boolean {
  for (let i = 0; i < values.length; i++) {
    if (typeof values[i] !== 'string' || (i > 0 && !((values[i - 1] as string) < (values[i] as string)))) return false;
  }
  return true;
}

function isSortedNumbers(values: readonly unknown[]): boolean {
  for (let i = 0; i < values.length; i++) {
    const value = values[i];
    if (
      !Number.isSafeInteger(value) ||
      (value as number) < 1 ||
      (i > 0 && !((values[i - 1] as number) < (value as number)))
    )
      return false;
  }
  return true;
}

/**
 * The rules of an issue's fields (docs/eligibility.md §1), checked by hand rather than with zod, which would take about
 * a second of its own per million issues: the field at fault and the rule, or null.
 */
function issueProblem(issue: BacklogIssue, previous: number): [field: string, rule: string] | null {
  if (!Number.isSafeInteger(issue.number) || issue.number < 1) return ['number', 'must be a positive integer'];
  if (issue.number <= previous)
    return ['number', `must be greater than the previous issue's ${previous}: issues are sorted by number, each once`];
  if (typeof issue.title !== 'string') return ['title', 'must be a string'];
  if (typeof issue.author !== 'string' || issue.author === '') return ['author', 'must be a non-empty login'];
  if (typeof issue.createdAt !== 'string' || !TIMESTAMP.test(issue.createdAt))
    return ['createdAt', 'must be a UTC timestamp with second precision'];
  if (typeof issue.updatedAt !== 'string' || !TIMESTAMP.test(issue.updatedAt))
    return ['updatedAt', 'must be a UTC timestamp with second precision'];
  if (!Number.isSafeInteger(issue.comments) || issue.comments < 0)
    return ['comments', 'must be a non-negative integer'];
  if (!Array.isArray(issue.labels) || !isSortedStrings(issue.labels))
    return ['labels', 'must be strings sorted in code-unit order, each once'];
  if (!Array.isArray(issue.claimedBy) || !isSortedNumbers(issue.claimedBy))
    return ['claimedBy', 'must be positive integers sorted ascending, each once'];
  const { signals } = issue;
  if (
    typeof signals?.reproduction !== 'boolean' ||
    typeof signals.question !== 'boolean' ||
    typeof signals.proposal !== 'boolean'
  ) {
    return ['signals', 'must hold the booleans reproduction, question and proposal'];
  }
  return null;
}

/**
 * One issue line: the canonical JSON of `{ repo, ...issue }` restricted to the documented fields. Written out for this
 * one shape (keys already in code-unit order) because the generic canonicalJson is several times slower; the tests
 * hold the two to the same bytes.
 */
function issueLine(repoJson: string, issue: BacklogIssue): string {
  const { signals } = issue;
  let labels = '';
  for (let i = 0; i < issue.labels.length; i++) labels += (i === 0 ? '' : ',') + JSON.stringify(issue.labels[i]);
  return (
    `{"author":${JSON.stringify(issue.author)},"claimedBy":[${issue.claimedBy.join(',')}],"comments":${issue.comments},` +
    `"createdAt":"${issue.createdAt}","labels":[${labels}],"number":${issue.number},"repo":${repoJson},` +
    `"signals":{"proposal":${signals.proposal},"question":${signals.question},"reproduction":${signals.reproduction}},` +
    `"title":${JSON.stringify(issue.title)},"updatedAt":"${issue.updatedAt}"}`
  );
}

/**
 * The serialization as UTF-8 chunks of whole lines, each line followed by "\n"; checks order and types on the way.
 * Every chunk is a view of one reused buffer, valid until the next is asked for: lines never pile up as strings.
 */
function* serialize(snapshot: BacklogSnapshot): Generator<Buffer> {
  const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
  let used = 0;
  // Lines are joined a batch at a time before encoding: one encoder call per batch instead of per line.
  let batch = `${canonicalJson(header(snapshot))}\n`;
  let previousRepo: string | undefined;
  for (const entry of snapshot.repos) {
    if (previousRepo !== undefined && !(previousRepo < entry.repo)) {
      throw invalid(
        `snapshot repos must be sorted by "owner/name" in code-unit order, each once: ${entry.repo} follows ${previousRepo}`,
        'repos',
      );
    }
    previousRepo = entry.repo;
    const repoJson = JSON.stringify(entry.repo);
    let previous = 0;
    for (const issue of entry.issues) {
      const problem = issueProblem(issue, previous);
      if (problem !== null)
        throw invalid(`snapshot issue ${entry.repo}#${String(issue.number)}: ${problem[0]} ${problem[1]}`, problem[0]);
      previous = issue.number;
      batch += `${issueLine(repoJson, issue)}\n`;
      if (batch.length < BATCH_UNITS) continue;
      // A UTF-16 code unit takes at most 3 bytes in UTF-8.
      if (used + 3 * batch.length > CHUNK_BYTES) {
        yield buffer.subarray(0, used);
        used = 0;
      }
      if (3 * batch.length > CHUNK_BYTES) yield Buffer.from(batch, 'utf8');
      else used += buffer.write(batch, used, 'utf8');
      batch = '';
    }
  }
  if (used > 0) yield buffer.subarray(0, used);
  if (batch !== '') yield Buffer.from(batch, 'utf8');
}

/** "sha256:<hex>" of the snapshot's canonical serialization (the bytes writeSnapshot writes). */
export function snapshotDigest(snapshot: BacklogSnapshot): string {
  const hash = createHash('sha256');
  for (const chunk of serialize(snapshot)) hash.update(chunk);
  return `sha256:${hash.digest('hex')}`;
}

/**
 * Writes the snapshot to `path` durably (a temporary file beside it, flushed, renamed over it, the folder flushed) and
 * returns its digest, which is also the sha256 of the file. Streamed: the chunks are hashed as they are written.
 */
export async function writeSnapshot(path: string, snapshot: BacklogSnapshot): Promise<string> {
  const hash = createHash('sha256');
  function* hashed(): Generator<Buffer> {
    for (const chunk of serialize(snapshot)) {
      hash.update(chunk);
      yield chunk;
    }
  }
  try {
    await writeFileDurably(path, hashed());
  } catch (error) {
    if (error instanceof BacklogError) throw error;
    throw new BacklogError(
      'snapshot-io',
      `could not write the backlog snapshot ${path}: ${(error as Error).message}; check the folder exists and is writable`,
      { file: path, cause: error },
    );
  }
  return `sha256:${hash.digest('hex')}`;
}

/** Builds a snapshot from its lines, one at a time, checking each as it comes. */
class SnapshotParser {
  snapshot: BacklogSnapshot | undefined;
  private expected: SnapshotHeader['repos'] = [];
  private repoIndex = -1;
  private current: BacklogRepo | undefined;
  private currentJson = '';
  line = 0;

  constructor(private readonly path: string) {}

  fail(field: string, message: string, line = this.line): never {
    throw new BacklogError('invalid-snapshot', `${this.path}:${line}: ${field === '' ? '' : `${field}: `}${message}`, {
      file: this.path,
      line,
      field,
    });
  }

  add(text: string): void {
    this.line++;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      this.fail('', `not JSON: ${(error as Error).message}`);
    }
    if (this.snapshot === undefined) this.header(value, text);
    else this.issue(value, text);
  }

  private header(value: unknown, text: string): void {
    const parsed = headerSchema.safeParse(value);
    if (!parsed.success) {
      const problem = parsed.error.issues[0];
      this.fail(problem?.path.join('.') ?? '', problem?.message ?? 'is invalid');
    }
    const { schema, registryVersion: version, takenAt, signalRules, repos } = parsed.data;
    repos.forEach((entry, index) => {
      const before = repos[index - 1];
      if (before !== undefined && !(before.repo < entry.repo))
        this.fail(`repos.${index}.repo`, 'repositories must be sorted by "owner/name" in code-unit order, each once');
    });
    if (canonicalJson(value) !== text) this.fail('', 'not in canonical form (RFC 8785: sorted keys, no whitespace)');
    this.expected = repos;
    this.snapshot = {
      schema,
      registryVersion: version,
      takenAt,
      signalRules,
      repos: repos.map((entry) => ({ repo: entry.repo, issues: [] })),
    };
  }

  private issue(value: unknown, text: string): void {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) this.fail('', 'must be an issue object');
    const line = value as BacklogIssue & { repo: unknown };
    const { repo } = line;
    if (typeof repo !== 'string') this.fail('repo', 'must be a repository "owner/name"');
    if (this.current !== undefined && repo < this.current.repo)
      this.fail('repo', `${repo} comes after ${this.current.repo}: lines are sorted by repository as in the header`);
    // A fresh object of the documented fields, in one shape for all (cheaper than a rest spread, and no `repo`).
    const issue: BacklogIssue = {
      number: line.number,
      title: line.title,
      labels: line.labels,
      author: line.author,
      createdAt: line.createdAt,
      updatedAt: line.updatedAt,
      comments: line.comments,
      claimedBy: line.claimedBy,
      signals: line.signals,
    };
    while (this.current?.repo !== repo) this.nextRepo(repo);
    const problem = issueProblem(issue, this.current.issues.at(-1)?.number ?? 0);
    if (problem !== null) this.fail(problem[0], problem[1]);
    // Equal bytes also rule out missing, extra or mistyped keys: the line is exactly the documented fields.
    if (issueLine(this.currentJson, issue) !== text)
      this.fail(
        '',
        'not in canonical form (RFC 8785: sorted keys, no whitespace), or fields other than the documented ones',
      );
    this.current.issues.push(issue);
  }

  /** Moves to `repo`'s lines, which must come next in header order; repositories passed over must be complete. */
  private nextRepo(repo: string): asserts this is { current: BacklogRepo } {
    this.checkCount();
    this.repoIndex++;
    this.current = this.snapshot?.repos[this.repoIndex];
    if (this.current === undefined)
      this.fail('repo', `${repo} is not listed in the header, or its lines are out of order`);
    this.currentJson = JSON.stringify(this.current.repo);
  }

  private checkCount(index = this.repoIndex): void {
    const entry = this.expected[index];
    const got = this.snapshot?.repos[index]?.issues.length ?? 0;
    if (entry !== undefined && got !== entry.issues)
      this.fail(`repos.${index}.issues`, `${entry.repo} has ${got} issue lines, the header says ${entry.issues}`);
  }

  finish(): BacklogSnapshot {
    if (this.snapshot === undefined)
      return this.fail('', 'the file is empty; a snapshot starts with its header line', 1);
    for (let index = Math.max(this.repoIndex, 0); index < this.expected.length; index++) this.checkCount(index);
    return this.snapshot;
  }
}

/**
 * Reads and validates a snapshot file: the header against its zod schema, every issue line against the same rules
 * the writer applies (by hand, see issueProblem), each line in canonical form, the order, and the header's
 * per-repository counts. Errors name the file, the line and the field. Since a file that
 * reads is canonical, the sha256 of its bytes, taken on the way, is the snapshot's digest.
 */
export async function readSnapshotWithDigest(path: string): Promise<{ snapshot: BacklogSnapshot; digest: string }> {
  const parser = new SnapshotParser(path);
  const hash = createHash('sha256');
  let rest: Buffer = Buffer.alloc(0);
  try {
    for await (const chunk of createReadStream(path, { highWaterMark: CHUNK_BYTES })) {
      const bytes = chunk as Buffer;
      hash.update(bytes);
      // Whole lines only: "\n" is never part of a multi-byte character, so each piece is whole UTF-8.
      const last = bytes.lastIndexOf(0x0a);
      if (last < 0) {
        rest = Buffer.concat([rest, bytes]);
        continue;
      }
      const whole =
        rest.length === 0 ? bytes.subarray(0, last + 1) : Buffer.concat([rest, bytes.subarray(0, last + 1)]);
      rest = Buffer.from(bytes.subarray(last + 1));
      if (!isUtf8(whole)) parser.fail('', 'not valid UTF-8', parser.line + 1);
      const text = whole.toString('utf8');
      for (let start = 0, end = text.indexOf('\n'); end >= 0; start = end + 1, end = text.indexOf('\n', start))
        parser.add(text.slice(start, end));
    }
  } catch (error) {
    if (error instanceof BacklogError) throw error;
    throw new BacklogError('snapshot-io', `could not read the backlog snapshot ${path}: ${(error as Error).message}`, {
      file: path,
      cause: error,
    });
  }
  if (rest.length > 0) parser.fail('', 'the last line has no final newline (a truncated file?)', parser.line + 1);
  return { snapshot: parser.finish(), digest: `sha256:${hash.digest('hex')}` };
}

/** Reads and validates a snapshot file (see readSnapshotWithDigest). */
export async function readSnapshot(path: string): Promise<BacklogSnapshot> {
  return (await readSnapshotWithDigest(path)).snapshot;
}
