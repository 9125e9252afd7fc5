// A built task on its way from the freeze worker that built it to the machine that publishes it: the bundle archive,
// the golden trace and the environment's blobs go into the run store under their digests, and one small document
// names them with everything else the publisher needs. The freeze worker holds no signing key and writes no store or
// log of the registry's; the publisher holds both and runs no suite. Every part is checked against its digest when
// taken back, and the document against its schema.
import { z } from 'zod';
import { taskSchema } from '@abp/protocol/schemas/abp-task';
import { canonicalJson } from '@abp/protocol/schemas/canonical-json';
import { nonNegativeInt, sha256Digest } from '@abp/protocol/schemas/primitives';
import { taskBundlePredicateSchema } from '@abp/protocol/signing/statement';
import { sha256Hex } from '@abp/protocol/bundle/digest';
import type { EnvironmentStore } from '@abp/grader/environments';
import { getEnvironment, putEnvironment } from '../run-store/environments.js';
import type { RunStore } from '../run-store/store.js';
import { FreezeError } from './errors.js';
import type { BuiltTask } from './task.js';

export const HANDOFF_SCHEMA = 'abp-freeze-handoff/1';

const ids = z.array(z.string());
const handoffSchema = z.strictObject({
  schema: z.literal(HANDOFF_SCHEMA),
  taskId: z.string(),
  bundle: sha256Digest,
  heldOutDigest: sha256Digest,
  goldenTrace: sha256Digest.nullable(),
  environment: z.strictObject({ image: sha256Digest, blobs: z.array(sha256Digest) }).nullable(),
  manifest: taskSchema,
  facts: taskBundlePredicateSchema.shape.freeze,
  failToPass: ids,
  passToPass: ids,
  flaky: ids,
  volatile: ids,
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
    heldOutDigest: built.heldOutDigest,
    goldenTrace: built.goldenTrace === null ? null : await store.put(built.goldenTrace.bytes),
    environment:
      built.environment === null || environments === null
        ? null
        : await putEnvironment(store, environments, built.environment),
    manifest: built.manifest,
    facts: built.facts,
    failToPass: built.failToPass,
    passToPass: built.passToPass,
    flaky: built.flaky,
    volatile: built.volatile,
    gold: built.gold,
    timings: built.timings,
  };
  return store.put(Buffer.from(canonicalJson(handoff)));
}

/** Whether the document `digest` and every part it names are still in the run store. */
export async function handoffKept(store: RunStore, digest: string): Promise<boolean> {
  if (!(await store.has(digest))) return false;
  const handoff = parseHandoff(await store.get(digest), digest, store);
  const parts = [handoff.bundle, handoff.goldenTrace, ...(handoff.environment?.blobs ?? [])];
  for (const part of parts) if (part !== null && !(await store.has(part))) return false;
  return true;
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
      'invalid-input',
      `${digest} in the run store ${store.location} is not an ${HANDOFF_SCHEMA} document (${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'not JSON'}): a freeze worker of another abp version wrote it, or it is not a hand-off; freeze the task again`,
    );
  }
  return parsed.data;
}

/**
 * The built task the document `digest` names, every part read back and checked; the environment's blobs go into
 * `environments` (the publisher's, which `abp serve` serves them from), and the image is verified whole.
 */
export async function takeOver(digest: string, store: RunStore, environments: EnvironmentStore): Promise<BuiltTask> {
  const handoff = parseHandoff(await store.get(digest), digest, store);
  const archive = await store.get(handoff.bundle);
  const trace = handoff.goldenTrace === null ? null : await store.get(handoff.goldenTrace);
  if (handoff.environment !== null) await getEnvironment(store, environments, handoff.environment);
  return {
    status: 'built',
    taskId: handoff.taskId,
    archive,
    heldOutDigest: handoff.heldOutDigest,
    goldenTrace: trace === null ? null : { bytes: trace, digest: `sha256:${sha256Hex(trace)}` },
    manifest: handoff.manifest,
    facts: handoff.facts,
    failToPass: handoff.failToPass,
    passToPass: handoff.passToPass,
    flaky: handoff.flaky,
    volatile: handoff.volatile,
    gold: handoff.gold,
    environment: handoff.environment?.image ?? null,
    timings: handoff.timings,
  };
}
