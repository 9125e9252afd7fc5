// The rotation stage: the registry version of the current quarter. A version is published once: when its document is
// stored it is reused as it is; a rotation that started before and did not publish is run again with the input it was
// started with (its stored facts are keyed to that `sourcedAt`); otherwise it is rotated on the worker now (discover,
// judge by the criteria, publish with its diff and API cost).
import { join } from 'node:path';
import { defaultPayloadConverter } from '@temporalio/common';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { PublicationError, readPublishedRegistry } from '@abp/pipeline/registry/publication';
import { DEFAULT_SCHEDULED_ROTATION } from '@abp/pipeline/contracts/rotation-defaults';
import {
  quarterVersion,
  rotateRegistryInput,
  type RotateRegistryInput,
  type RotationResult,
} from '@abp/pipeline/contracts/rotation';
import type { rotateRegistry } from '@abp/pipeline/workflows/rotation';
import { taskQueues, workflowIds } from '@abp/pipeline/workflows/shared';
import { PipelineError } from './errors.js';
import type { StageReport } from './stage.js';
import { activityProgress, retryReporter, startOrJoin } from './temporal.js';

export interface Rotation {
  version: string;
  digest: string;
  entries: number;
  /** The published abp-registry/v1 document. */
  document: string;
  /** Published before this run: nothing was read from GitHub. */
  reused: boolean;
}

/** The input an earlier rotation of this version was started with, or null when none was. */
async function earlierInput(client: Client, workflowId: string): Promise<RotateRegistryInput | null> {
  try {
    const handle = client.workflow.getHandle(workflowId);
    // describe() turns "no such workflow" into WorkflowNotFoundError; fetchHistory() would throw the raw gRPC error.
    await handle.describe();
    const history = await handle.fetchHistory();
    const payload = history.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0];
    return payload ? rotateRegistryInput.parse(defaultPayloadConverter.fromPayload(payload)) : null;
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return null;
    throw error;
  }
}

async function published(
  publishDir: string,
  version: string,
): Promise<{ digest: string; entries: number; path: string; sourcedAt: string } | null> {
  try {
    const { document, path } = await readPublishedRegistry(publishDir, version);
    return { digest: document.digest, entries: document.entries.length, path, sourcedAt: document.sourcedAt };
  } catch (error) {
    if (error instanceof PublicationError && error.code === 'not-published') return null;
    throw error;
  }
}

export async function rotateCurrentQuarter(
  client: Client,
  input: { home: string; now: Date; workerLog: string },
  report: StageReport,
): Promise<{ value: Rotation; summary: string }> {
  const publishDir = join(input.home, 'published');
  const version = quarterVersion(input.now);
  const stored = await published(publishDir, version);
  if (stored !== null) {
    // A version is never published twice, so an empty one stands for its quarter in this data directory.
    if (stored.entries === 0)
      throw new PipelineError(
        'rotation',
        `${version} is stored with no entries (${stored.path}): nothing can be drawn from it. No repository passed the criteria when it was rotated; use a fresh ABP_HOME`,
        input.workerLog,
      );
    return {
      value: { version, digest: stored.digest, entries: stored.entries, document: stored.path, reused: true },
      summary: `${version}: ${stored.entries} repositories, reused (published ${stored.sourcedAt}); digest ${stored.digest}`,
    };
  }

  const workflowId = workflowIds.registryRotation(version);
  const earlier = await earlierInput(client, workflowId);
  const parsed =
    earlier ??
    rotateRegistryInput.parse({
      version,
      top: DEFAULT_SCHEDULED_ROTATION.top,
      size: DEFAULT_SCHEDULED_ROTATION.size,
      sourcedAt: `${input.now.toISOString().slice(0, 19)}Z`,
    });
  report.note(
    earlier === null
      ? `${version}: the ${parsed.top} most starred repositories judged by the criteria, up to ${parsed.size ?? DEFAULT_SCHEDULED_ROTATION.size} kept (workflow ${workflowId})`
      : `${version}: resuming the rotation started with sourcedAt ${parsed.sourcedAt} (workflow ${workflowId}); batches read before come from the store`,
  );
  const retries = retryReporter((message) => report.note(message));
  const result = await startOrJoin<RotationResult>(
    client,
    workflowId,
    () =>
      client.workflow.start<typeof rotateRegistry>('rotateRegistry', {
        taskQueue: taskQueues.main,
        workflowId,
        args: [parsed],
      }),
    async (handle) => {
      const { completed, pending, retrying } = await activityProgress(handle);
      retries(retrying);
      const label = pending.includes('discoverRotationCandidates')
        ? 'searching'
        : pending.includes('publishRegistryVersion')
          ? 'publishing'
          : pending.length > 0
            ? 'reading a batch'
            : null;
      report.progress(completed.get('fetchRotationBatch') ?? 0, null, 'batches', label);
    },
  );
  const document = join(publishDir, 'registry', `${result.version.replace(/^abp-registry\//, '')}.json`);
  if (result.entries === 0)
    throw new PipelineError(
      'rotation',
      `${result.version} was published with no entries (${document}): no repository passed the criteria; see the rotation's verdicts in the worker log`,
      input.workerLog,
    );
  const how = `published: ${result.added} added, ${result.removed} removed, ${result.kept} kept; ${result.cost.points} GraphQL points in ${result.cost.requests} requests`;
  return {
    value: { version: result.version, digest: result.digest, entries: result.entries, document, reused: false },
    summary: `${result.version}: ${result.entries} repositories, ${how}; digest ${result.digest}`,
  };
}
