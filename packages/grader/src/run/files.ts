// Writing receipts: whole files or nothing (temp file, then rename), so an interrupted run never leaves half a record;
// the digest of every write, for the journal that seals them; and making them durable before the journal names them.
import { AsyncLocalStorage } from 'node:async_hooks';
import { chmod, mkdir, open, readdir, rm } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { syncFolder, writeFileAtomically } from '@abp/protocol/files/durable-files';
import { sha256Of } from './seal.js';

// The writes of the work running inside recordingWrites, by absolute path: each trial gets its own map, so trials in
// flight together never see each other's files, and trial.ts needs no digest plumbing of its own.
const recordedWrites = new AsyncLocalStorage<Map<string, string>>();

/**
 * Writes `path` whole or not at all, creating its folder. No fsync, for speed: a run writes a receipt per trial and
 * command; the run makes a trial's receipts durable once, before its journal line (makeDurable).
 */
export async function writeFileAtomic(path: string, data: string | Buffer): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFileAtomically(path, data);
  // Taken from the bytes written, not read back: whatever rewrites the file afterwards cannot get its bytes sealed.
  recordedWrites.getStore()?.set(resolve(path), sha256Of(data));
}

/**
 * Runs `work` and returns, beside its value, the sha256 of the last bytes it wrote through writeFileAtomic to each
 * path (absolute), as the journal records receipts.
 */
export async function recordingWrites<T>(
  work: () => Promise<T>,
): Promise<{ value: T; written: ReadonlyMap<string, string> }> {
  const written = new Map<string, string>();
  const value = await recordedWrites.run(written, work);
  return { value, written };
}

/**
 * Flushes files and the folders naming them to disk. The journal fsyncs each line, and a line that seals a file the
 * disk then loses would make the whole folder refuse as tampered after a power cut: the files go first.
 */
export async function makeDurable(paths: readonly string[]): Promise<void> {
  for (const path of paths) {
    const handle = await open(path, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  }
  for (const folder of new Set(paths.map((path) => dirname(path)))) await syncFolder(folder);
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
