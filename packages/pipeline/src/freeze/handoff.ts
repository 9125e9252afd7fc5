// A built task on its way from the freeze worker that built it to the machine that publishes it: the bundle archive,
// the golden trace and the environment's blobs go into the run store under their digests, and one small document
// names them. The freeze worker holds no signing key and writes no store or log of the registry's; the publisher holds
// both and runs no suite. What the publisher signs (the manifest, the held-out digest, the test sets and their
// counts) it reads from the archive itself, never from the document, and the document's trace and environment must be
// the ones the manifest names: a worker of another version, or a document that lies, cannot get another task signed.
import { z } from 'zod';
import { sha256Hex } from '@abp/protocol/bundle/digest';
import { parseExpectedResults, type ExpectedResults } from '@abp/protocol/bundle/expected-results';
import { EXPECTED_RESULTS_ENTRY, HELD_OUT_ENTRY, TASK_ENTRY } from '@abp/protocol/bundle/layout';
import { readTar } from '@abp/protocol/bundle/tar';
import { taskSchema, type AbpTask } from '@abp/protocol/schemas/abp-task';
import { canonicalJson } from '@abp/protocol/schemas/canonical-json';
import { nonNegativeInt, sha256Digest } from '@abp/protocol/schemas/primitives';
import type { EnvironmentStore } from '@abp/grader/environments';
import { getEnvironment, putEnvironment } from '../run-store/environments.js';
import type { RunStore } from '../run-store/store.js';
import { FreezeError } from './errors.js';
import type { BuiltTask } from './task.js';

export const HANDOFF_SCHEMA = 'abp-freeze-handoff/1';

const handoffSchema = z.strictObject({
  schema: z.literal(HANDOFF_SCHEMA),
  taskId: z.string(),
  bundle: sha256Digest,
  goldenTrace: sha256Digest.nullable(),
  environment: z.strictObject({ image: sha256Digest, blobs: z.array(sha256Digest) }).nullable(),
  /** The bundle builder that made the archive, as the signed statement names it. */
  builder: z.string(),
  /** What the archive cannot say: ids seen in only some runs, the gold proof's trials, and the build's timings. */
  volatile: z.array(z.string()),
  gold: z.strictObject({ trials: nonNegativeInt }),
  timings: z.strictObject({ freezeMs: nonNegativeInt, goldMs: nonNegativeInt, bundleMs: nonNegativeInt }),
});
type Handoff = z.infer<typeof handoffSchema>;

/**
 * Puts every part of `built` in the run store, then the document naming them (last, so a document in the store always
 * names parts that are there); returns the document's digest. `environments` is where the freeze built the image.
 */
export async function handOver(
  built: BuiltTask,
  store: RunStore,
  environments: EnvironmentStore | null,
): Promise<string> {
  if (built.environment !== null && environments === null)
    throw new FreezeError(
      'invalid-options',
      `${built.taskId} was built in environment ${built.environment}, but no environment store was given to hand it over from`,
    );
  const handoff: Handoff = {
    schema: HANDOFF_SCHEMA,
    taskId: built.taskId,
    bundle: await store.put(built.archive),
    goldenTrace: built.goldenTrace === null ? null : await store.put(built.goldenTrace.bytes),
    environment:
      built.environment === null || environments === null
        ? null
        : await putEnvironment(store, environments, built.environment),
    builder: built.facts.builder,
    volatile: built.volatile,
    gold: built.gold,
    timings: built.timings,
  };
  return store.put(Buffer.from(canonicalJson(handoff)));
}

/** Whether the document `digest` and every part it names are in the run store, readable; false on any doubt. */
export async function handoffKept(store: RunStore, digest: string): Promise<boolean> {
  try {
    const handoff = parseHandoff(await store.get(digest), digest, store);
    const parts = [handoff.bundle, handoff.goldenTrace, ...(handoff.environment?.blobs ?? [])];
    for (const part of parts) if (part !== null && !(await store.has(part))) return false;
    return true;
  } catch {
    return false;
  }
}

function parseHandoff(bytes: Buffer, digest: string, store: RunStore): Handoff {
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString('utf8'));
  } catch {
    value = null;
  }
  const parsed = handoffSchema.safeParse(value);
  if (!parsed.success) {
    const [issue] = parsed.error.issues;
    throw new FreezeError(
      'handoff-unreadable',
      `${digest} in the run store ${store.location} is not an ${HANDOFF_SCHEMA} document (${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'not JSON'}): a freeze worker of another abp version wrote it, or it is not a hand-off`,
    );
  }
  return parsed.data;
}

/** The one entry `path` of a tar, or a refusal naming the hand-off. */
function entryOf(archive: Buffer, path: string, what: string, digest: string): Buffer {
  const entry = readTar(archive, what).find((candidate) => candidate.path === path);
  if (entry === undefined)
    throw new FreezeError('handoff-unreadable', `the hand-off ${digest}: ${what} has no ${path}`);
  return entry.content;
}

/** The image digest a manifest names (`…@sha256:<hex>`), or null for a task that runs on the host. */
function imageOf(manifest: AbpTask): string | null {
  const { image } = manifest.environment;
  const at = image.lastIndexOf('@sha256:');
  return at === -1 ? null : image.slice(at + 1);
}

/** The manifest, held-out part and expected results of a handed-over bundle; `handoff-unreadable` when it has none. */
function readBundle(
  archive: Buffer,
  bundle: string,
  digest: string,
): { manifest: AbpTask; heldOut: Buffer; expected: ExpectedResults } {
  try {
    const manifest = taskSchema.parse(JSON.parse(entryOf(archive, TASK_ENTRY, `bundle ${bundle}`, digest).toString()));
    const heldOut = entryOf(archive, HELD_OUT_ENTRY, `bundle ${bundle}`, digest);
    const expected = parseExpectedResults(
      JSON.parse(entryOf(heldOut, EXPECTED_RESULTS_ENTRY, `${HELD_OUT_ENTRY} of ${bundle}`, digest).toString()),
      `${HELD_OUT_ENTRY}: ${EXPECTED_RESULTS_ENTRY} of ${bundle}`,
    );
    return { manifest, heldOut, expected };
  } catch (error) {
    if (error instanceof FreezeError) throw error;
    throw new FreezeError(
      'handoff-unreadable',
      `the hand-off ${digest} names bundle ${bundle}, which is not a bundle this abp reads: ${error instanceof Error ? error.message.slice(0, 500) : String(error)}`,
      { cause: error },
    );
  }
}

/**
 * The built task the document `digest` names, every part read back and checked, and everything that is signed read
 * from the archive; the environment's blobs go into `environments` (the publisher's, which `abp serve` serves them
 * from), and the image is verified whole.
 */
export async function takeOver(digest: string, store: RunStore, environments: EnvironmentStore): Promise<BuiltTask> {
  const handoff = parseHandoff(await store.get(digest), digest, store);
  const archive = await store.get(handoff.bundle);
  const { manifest, heldOut, expected } = readBundle(archive, handoff.bundle, digest);
  const { source } = manifest;
  const mismatches = [
    manifest.id !== handoff.taskId && `the bundle is of task ${manifest.id}, the document says ${handoff.taskId}`,
    source.kind !== 'github-issue' && `the manifest's source is ${source.kind}, not github-issue`,
    (manifest.golden?.trace !== undefined) !== (handoff.goldenTrace !== null) &&
      `the manifest ${manifest.golden?.trace === undefined ? 'names no' : 'names a'} golden trace, the document ${handoff.goldenTrace === null ? 'carries none' : 'carries one'}`,
    imageOf(manifest) !== (handoff.environment?.image ?? null) &&
      `the manifest names environment ${imageOf(manifest) ?? 'none'}, the document carries ${handoff.environment?.image ?? 'none'}`,
  ].filter((problem) => problem !== false);
  if (mismatches.length > 0 || source.kind !== 'github-issue' || manifest.golden === undefined)
    throw new FreezeError(
      'handoff-unreadable',
      `the hand-off ${digest} does not match its bundle: ${mismatches.join('; ') || 'the manifest names no golden fix'}`,
    );
  const trace = handoff.goldenTrace === null ? null : await store.get(handoff.goldenTrace);
  if (handoff.environment !== null) await getEnvironment(store, environments, handoff.environment);
  return {
    status: 'built',
    taskId: manifest.id,
    archive,
    heldOutDigest: `sha256:${sha256Hex(heldOut)}`,
    goldenTrace: trace === null ? null : { bytes: trace, digest: `sha256:${sha256Hex(trace)}` },
    manifest,
    facts: {
      repo: source.repo,
      baseCommit: source.baseCommit,
      mergedPr: manifest.golden.mergedPr,
      failToPass: expected.failToPass.length,
      passToPass: expected.passToPass.length,
      flaky: expected.flaky.length,
      builder: handoff.builder,
    },
    failToPass: expected.failToPass,
    passToPass: expected.passToPass,
    flaky: expected.flaky.map((test) => test.id),
    volatile: handoff.volatile,
    gold: handoff.gold,
    environment: handoff.environment?.image ?? null,
    timings: handoff.timings,
  };
}
