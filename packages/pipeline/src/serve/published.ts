// What the read-only API reads from the data directory, by the contracts of the modules that write it: published
// documents (registry/publication.ts), tasks frozen by hand (freeze/published-tasks.ts), the bundle store
// (freeze/bundle/store.ts), the golden traces signed with the bundles (freeze/golden-trace-store.ts), signed statements
// (signing/attestor.ts), the trust root and its versions (signing/home.ts). Only reads; a file that is absent is null,
// never an error, so the API can answer 404.
import { EnvironmentStore } from '@abp/grader/environments';
import { homePaths } from '@abp/grader/home';
import { open, readdir, readFile, type FileHandle } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { BundleStore } from '../freeze/bundle/store.js';
import { GoldenTraceStore } from '../freeze/golden-trace-store.js';
import { listPublishedTasks, readPublishedTask, type PublishedTaskRecord } from '../freeze/published-tasks.js';
import { publicationPaths } from '../registry/publication.js';
import { compareCodeUnits, documentId, conforms } from '@abp/protocol/schemas/primitives';
import { statementPath } from '../signing/attestor.js';
import { signingPaths } from '../signing/home.js';
import type { LogEntryKind } from '@abp/protocol/transparency/formats';
import { unverifiedTaskBundlePredicate } from '@abp/protocol/signing/statement';

/** Errors that mean "nothing there": the file, or a folder on its way, does not exist or is not a file. */
const absent = new Set(['ENOENT', 'ENOTDIR', 'EISDIR']);

export async function readIfPresent(path: string): Promise<Buffer | null> {
  return readFile(path).catch((error: NodeJS.ErrnoException) => {
    if (absent.has(error.code ?? '')) return null;
    throw error;
  });
}

/** An open file and its size, or null. The caller owns the handle (the router closes it once answered). */
export async function openIfPresent(path: string): Promise<{ file: FileHandle; size: number } | null> {
  let file: FileHandle;
  try {
    file = await open(path, 'r');
  } catch (error) {
    if (absent.has((error as NodeJS.ErrnoException).code ?? '')) return null;
    throw error;
  }
  try {
    const stats = await file.stat();
    if (!stats.isFile()) {
      await file.close();
      return null;
    }
    return { file, size: stats.size };
  } catch (error) {
    await file.close();
    throw error;
  }
}

async function namesIn(dir: string): Promise<string[]> {
  return readdir(dir).catch((error: NodeJS.ErrnoException) => {
    if (absent.has(error.code ?? '')) return [] as string[];
    throw error;
  });
}

const QUARTER_FILE = /^(\d{4}Q[1-4])\.json$/;
const TRUST_ROOT_FILE = /^v([1-9]\d{0,8})\.json$/;

export interface PublishedFiles {
  readonly store: BundleStore;
  /** The golden traces, by digest; a task's signed statement names its own. */
  readonly goldenTraces: GoldenTraceStore;
  /** Published registry versions as quarters (`2026Q2`), oldest first. */
  registryQuarters(): Promise<string[]>;
  registry(quarter: string): Promise<Buffer | null>;
  /** Published draw ids, in code-unit order. */
  drawIds(): Promise<string[]>;
  draw(id: string): Promise<Buffer | null>;
  /** The signed statement kept for (kind, subject) by the attestor, or null. */
  statement(kind: LogEntryKind, subject: string): Promise<Buffer | null>;
  /** The data directory's current trust root document. */
  currentTrustRoot(): Promise<Buffer | null>;
  /**
   * The published trust root versions, lowest first. A version is published once both its document and its signed
   * statement are there (signing/trust-root-versions.ts writes the document first): a crash between the two writes
   * must not offer consumers an unsigned version.
   */
  trustRootVersions(): Promise<number[]>;
  /** Version `version`'s document, only while its statement is there too. */
  trustRootVersion(version: number): Promise<Buffer | null>;
  trustRootStatement(version: number): Promise<Buffer | null>;
  /** The transparency log's folder (serve/log-reader.ts reads it). */
  readonly logDir: string;
  /** The environment store tasks frozen with an environment name theirs in, by digest. */
  readonly environments: EnvironmentStore;
  /** The records of tasks frozen by hand (`abp freeze`), in task id order; a damaged record is an error naming it. */
  publishedTasks(): Promise<PublishedTaskRecord[]>;
  /** The record of one, or null. */
  publishedTask(taskId: string): Promise<PublishedTaskRecord | null>;
}

export function publishedFiles(home: string): PublishedFiles {
  const signing = signingPaths(home);
  const publicationRoot = join(home, 'published');
  const publication = publicationPaths(publicationRoot);
  const trustRootFile = (version: number, suffix: '.json' | '.sigstore.json') =>
    join(signing.trustRoots, `v${version}${suffix}`);
  return {
    store: new BundleStore(signing.bundles),
    goldenTraces: new GoldenTraceStore(signing.goldenTraces),
    logDir: signing.log,
    environments: new EnvironmentStore(homePaths(home).environments),
    async registryQuarters() {
      const names = await namesIn(publication.registryDir);
      return names.flatMap((name) => QUARTER_FILE.exec(name)?.[1] ?? []).sort(compareCodeUnits);
    },
    registry: (quarter) => readIfPresent(publication.registry(quarter)),
    async drawIds() {
      // publicationPaths names draws by id only; their folder is where any id's record goes.
      const names = await namesIn(dirname(publication.draw('any')));
      return names
        .filter((name) => name.endsWith('.json'))
        .map((name) => name.slice(0, -'.json'.length))
        .filter((id) => conforms(documentId, id))
        .sort(compareCodeUnits);
    },
    draw: (id) => readIfPresent(publication.draw(id)),
    statement: (kind, subject) => readIfPresent(statementPath(signing.statements, kind, subject)),
    currentTrustRoot: () => readIfPresent(signing.trustRoot),
    async trustRootVersions() {
      const names = new Set(await namesIn(signing.trustRoots));
      return [...names]
        .flatMap((name) => {
          const version = TRUST_ROOT_FILE.exec(name)?.[1];
          return version !== undefined && names.has(`v${version}.sigstore.json`) ? [Number(version)] : [];
        })
        .sort((a, b) => a - b);
    },
    async trustRootVersion(version) {
      const [document, statement] = await Promise.all([
        readIfPresent(trustRootFile(version, '.json')),
        readIfPresent(trustRootFile(version, '.sigstore.json')),
      ]);
      return statement === null ? null : document;
    },
    trustRootStatement: (version) => readIfPresent(trustRootFile(version, '.sigstore.json')),
    publishedTasks: () => listPublishedTasks(publicationRoot),
    publishedTask: (taskId) => readPublishedTask(publicationRoot, taskId),
  };
}

/**
 * The held-out part's and the golden trace's digests a stored bundle signature names, read without verifying it: the
 * API offers them as hints, and finds the trace it serves for a task by the second; `abp pull` verifies the statement,
 * then checks the archive's held-out part and the trace it downloads against it. Null for what the signature names not.
 */
export function signedDigestsOf(signature: Buffer | null): { heldOut: string | null; goldenTrace: string | null } {
  const predicate = signature === null ? null : unverifiedTaskBundlePredicate(signature.toString('utf8'));
  return { heldOut: predicate?.heldOutDigest ?? null, goldenTrace: predicate?.goldenTraceDigest ?? null };
}
