// Whole-file writes that an interrupted process or a crash cannot leave half done: the bytes go to a temporary file
// beside the target (a dot file, which folder readers skip), then take the target's name in one step. Replacing uses
// rename; writing once uses link. Where a folder must exist, and with what mode, stays the caller's to decide: nothing
// here creates folders.
import { randomUUID } from 'node:crypto';
import { link, open, readFile, rename, rm, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

export interface FileWriteOptions {
  /**
   * The file's exact permission bits, set on the open file before any byte is written (the umask only narrows the mode
   * open creates with, so it is stated again). Without it the file gets open's default, 0o666 narrowed by the umask.
   */
  mode?: number;
}

/** What a whole-file write takes: text (UTF-8), bytes, or chunks of bytes written in order as they come. */
export type FileContent = string | Uint8Array | Iterable<Uint8Array>;

export type WriteOnceResult = { created: true } | { created: false; existing: Buffer };

/**
 * Fsyncs a folder, so an entry just linked, renamed or removed in it survives a crash too: a file's own fsync makes its
 * bytes durable, not the name that points at them.
 */
export async function syncFolder(dir: string): Promise<void> {
  const folder = await open(dir, 'r');
  try {
    await folder.sync();
  } finally {
    await folder.close();
  }
}

function temporaryPathOf(path: string): string {
  return join(dirname(path), `.${basename(path)}.${randomUUID()}.tmp`);
}

async function writeContent(handle: FileHandle, content: FileContent): Promise<void> {
  if (typeof content === 'string' || content instanceof Uint8Array) return handle.writeFile(content);
  // One chunk at a time, each written before the next is asked for: a producer may reuse its buffer between chunks.
  for (const chunk of content) await handle.writeFile(chunk);
}

/** Creates `temporary` (which must not exist) holding `content`, flushed to disk when `durable`. */
async function writeTemporary(
  temporary: string,
  content: FileContent,
  mode: number | undefined,
  durable: boolean,
): Promise<void> {
  const handle = await open(temporary, 'wx', mode);
  try {
    if (mode !== undefined) await handle.chmod(mode);
    await writeContent(handle, content);
    if (durable) await handle.sync();
  } finally {
    await handle.close();
  }
}

async function replaceFile(
  path: string,
  content: FileContent,
  options: FileWriteOptions,
  durable: boolean,
): Promise<void> {
  const temporary = temporaryPathOf(path);
  try {
    await writeTemporary(temporary, content, options.mode, durable);
    // rename, not link: the new bytes replace whatever the path held, in one step a reader sees whole or not at all.
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
  if (durable) await syncFolder(dirname(path));
}

/**
 * Replaces `path` (in an existing folder) with `content` so a crash leaves either the old file or the new one, both
 * durable: the temporary file is fsynced before the rename, and the folder after it. On failure nothing is left behind.
 */
export async function writeFileDurably(
  path: string,
  content: FileContent,
  options: FileWriteOptions = {},
): Promise<void> {
  await replaceFile(path, content, options, true);
}

/**
 * Replaces `path` (in an existing folder) with `content` whole or not at all, without fsync: a killed process never
 * leaves half a file, but a power loss may lose the write. For files rewritten often and cheap to make again.
 */
export async function writeFileAtomically(
  path: string,
  content: FileContent,
  options: FileWriteOptions = {},
): Promise<void> {
  await replaceFile(path, content, options, false);
}

/**
 * Writes `content` to `path` (in an existing folder) unless a file is there already, durably; when one is, leaves it
 * and returns its bytes. Linked into place from a flushed temporary file, so a reader never sees half a file, and of
 * two writers racing for the path the first wins and the second is told.
 */
export async function writeFileOnce(
  path: string,
  content: string | Uint8Array,
  options: FileWriteOptions = {},
): Promise<WriteOnceResult> {
  const temporary = temporaryPathOf(path);
  try {
    await writeTemporary(temporary, content, options.mode, true);
    // link, not rename: rename would replace a file another writer put there meanwhile; link fails with EEXIST.
    await link(temporary, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return { created: false, existing: await readFile(path) };
  } finally {
    await rm(temporary, { force: true });
  }
  await syncFolder(dirname(path));
  return { created: true };
}
