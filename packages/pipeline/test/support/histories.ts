// The committed workflow histories the replay test (workflows/histories.test.ts) holds today's workflow code to, and
// how they are made: the integration tests that run each scenario for real keep its history when
// ABP_RECORD_HISTORIES=1 (`npm run histories:record`). Re-record only for a deliberate change, made with patched().
import { mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Client } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils.js';

export const HISTORIES_DIR = fileURLToPath(new URL('../fixtures/histories/', import.meta.url));

export const recordingHistories = process.env.ABP_RECORD_HISTORIES === '1';

/** Keeps the history of `workflowId` (its run `runId`, else the latest) as `<name>.json`, when recording. */
export async function keepHistory(client: Client, name: string, workflowId: string, runId?: string): Promise<void> {
  if (!recordingHistories) return;
  const history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
  mkdirSync(HISTORIES_DIR, { recursive: true });
  const target = join(HISTORIES_DIR, `${name}.json`);
  writeFileSync(`${target}.partial`, `${historyToJSON(history)}\n`);
  renameSync(`${target}.partial`, target);
}

export interface SavedHistory {
  name: string;
  workflowId: string;
  history: unknown;
}

/** Every committed history, by file name; the workflow id it ran under is the replay's. */
export function savedHistories(): SavedHistory[] {
  return readdirSync(HISTORIES_DIR)
    .filter((file) => file.endsWith('.json'))
    .sort()
    .map((file) => {
      const history = JSON.parse(readFileSync(join(HISTORIES_DIR, file), 'utf8')) as unknown;
      return { name: file.replace(/\.json$/, ''), workflowId: `replay-${file.replace(/\.json$/, '')}`, history };
    });
}
