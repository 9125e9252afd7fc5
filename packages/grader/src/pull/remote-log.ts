// A copy of a registry's transparency log made through its read-only API, in the log folder format
// (docs/transparency-log.md §2), so `abp audit log --from <url>` runs the very audit it runs on a folder. Nothing is
// judged here beyond the API's shapes: each entry is written as the canonical line of what the server describes, each
// checkpoint under the size it is listed as, and auditLog finds whatever is wrong with them. Files in the temporary
// copy are not fsynced: it lives for one audit.
import { mkdir, open } from 'node:fs/promises';
import { join } from 'node:path';
import { canonicalJson } from '@abp/protocol/schemas/canonical-json';
import type { SignedCheckpoint } from '@abp/protocol/transparency/formats';
import { CHECKPOINTS_DIR, ENTRIES_FILE } from '@abp/protocol/transparency/log';
import type { RegistryClient } from './client.js';
import { PullError } from './errors.js';

// The most entries the API hands out per page (serve/api.ts MAX_LIMIT).
const PAGE = 1_000;

export interface DownloadedLog {
  /** The number of entries written. */
  size: number;
  /** The checkpoints written, smallest first. */
  checkpoints: SignedCheckpoint[];
}

/**
 * Downloads the log served by `client` into `dir` (which must be empty or absent). Checkpoints are fetched before the
 * entries, so every checkpoint's entries are there even while the log grows; entries appended meanwhile come along.
 */
export async function downloadLog(client: RegistryClient, dir: string): Promise<DownloadedLog> {
  await mkdir(join(dir, CHECKPOINTS_DIR), { recursive: true });
  const checkpoints: SignedCheckpoint[] = [];
  for (const size of [...new Set(await client.checkpointSizes())].sort((a, b) => a - b)) {
    const signed = await client.checkpoint(size);
    if (signed === null)
      throw new PullError(
        'server-error',
        `${client.baseUrl} lists a log checkpoint of size ${size} but does not serve it`,
      );
    // Under the size it was listed as: a server that answers with another checkpoint is caught by the audit's name check.
    await writeWhole(join(dir, CHECKPOINTS_DIR, `${size}.json`), `${canonicalJson(signed)}\n`);
    checkpoints.push(signed);
  }

  const lines: string[] = [];
  for (let start = 0; ;) {
    const page = await client.logEntries(start, PAGE);
    if (page.start !== start)
      throw new PullError(
        'server-error',
        `${client.baseUrl} answered the log entries from ${start} with a page from ${page.start}`,
      );
    lines.push(...page.entries.map((entry) => `${canonicalJson(entry)}\n`));
    start += page.entries.length;
    if (page.entries.length === 0 || start >= page.size) break;
  }
  await writeWhole(join(dir, ENTRIES_FILE), lines.join(''));
  return { size: lines.length, checkpoints };
}

async function writeWhole(path: string, text: string): Promise<void> {
  const handle = await open(path, 'wx');
  try {
    await handle.writeFile(text);
  } finally {
    await handle.close();
  }
}
