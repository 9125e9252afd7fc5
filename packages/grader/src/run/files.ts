// Writing receipts: whole files or nothing (temp file, then rename), so an interrupted run never leaves half a record.
import { chmod, mkdir, readdir, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { writeFileAtomically } from '@abp/protocol/files/durable-files';

/**
 * Writes `path` whole or not at all, creating its folder. No fsync, for speed: a run writes a receipt per trial and
 * command, and what must survive a power cut is the progress journal, which fsyncs each line (journal.ts).
 */
export async function writeFileAtomic(path: string, data: string | Buffer): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFileAtomically(path, data);
}

/** JSON as every abp document is written: two-space indent and a final newline. */
export function jsonText(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

/**
 * Removes a folder an engine or a toolchain wrote, which may hold read-only folders (Go's module cache is 0555):
 * on a permission error the tree is made writable and removal retried. Never throws; false when something remains.
 */
export async function removeTree(path: string): Promise<boolean> {
  try {
    await rm(path, { recursive: true, force: true });
    return true;
  } catch {
    const entries = await readdir(path, { recursive: true, withFileTypes: true }).catch(() => []);
    await chmod(path, 0o700).catch(() => undefined);
    for (const entry of entries)
      if (entry.isDirectory()) await chmod(`${entry.parentPath}/${entry.name}`, 0o700).catch(() => undefined);
    return rm(path, { recursive: true, force: true }).then(
      () => true,
      () => false,
    );
  }
}
