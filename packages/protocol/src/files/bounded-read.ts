// Reading a file a user or a registry handed over, whole, without trusting it: only a regular file (a FIFO, a device
// such as /dev/zero or a socket would never end, or end with gigabytes), and only up to a size stated per kind of input,
// checked on the open file before a byte is read and again while reading (a file that grows meanwhile is refused too).
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { AbpError } from '../errors.js';

export type BoundedReadCode =
  /** Not a regular file: a directory, a FIFO, a device, a socket. */
  | 'not-a-regular-file'
  /** Larger than the size stated for that kind of input. */
  | 'input-too-large'
  /** Absent, or the operating system refused to read it. */
  | 'unreadable';

export class BoundedReadError extends AbpError<BoundedReadCode> {}

export const MiB = 1024 * 1024;

/**
 * The bytes of the regular file at `path`, at most `maxBytes`; `what` names the input in errors (e.g. "the bundle").
 * O_NONBLOCK keeps the open itself from waiting on a FIFO with no writer.
 */
export async function readBoundedFile(path: string, options: { maxBytes: number; what: string }): Promise<Buffer> {
  const { maxBytes, what } = options;
  let file;
  try {
    file = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new BoundedReadError(
      'unreadable',
      `${path}: cannot read ${what} (${code === 'ENOENT' ? 'no such file' : (code ?? (error as Error).message)})`,
      { cause: error },
    );
  }
  try {
    const stats = await file.stat();
    if (!stats.isFile())
      throw new BoundedReadError(
        'not-a-regular-file',
        `${path} is not a regular file (${stats.isDirectory() ? 'a directory' : stats.isFIFO() ? 'a FIFO' : stats.isCharacterDevice() || stats.isBlockDevice() ? 'a device' : 'a socket or other special file'}): give ${what} as a file`,
      );
    const tooLarge = () =>
      new BoundedReadError(
        'input-too-large',
        `${path} is larger than the ${maxBytes / MiB} MiB allowed for ${what}: it cannot be ${what}`,
      );
    if (stats.size > maxBytes) throw tooLarge();
    // Read until the end, and refuse a file that grew past the cap since the stat rather than cut it short.
    const chunks: Buffer[] = [];
    let total = 0;
    const chunk = Buffer.alloc(Math.min(Math.max(stats.size, 64 * 1024), 16 * MiB) + 1);
    for (;;) {
      const { bytesRead } = await file.read(chunk, 0, chunk.length, null);
      if (bytesRead === 0) break;
      total += bytesRead;
      if (total > maxBytes) throw tooLarge();
      chunks.push(Buffer.from(chunk.subarray(0, bytesRead)));
    }
    return Buffer.concat(chunks, total);
  } finally {
    await file.close();
  }
}

/** Refuses `path` unless it is a regular file of at most `maxBytes`: for inputs read as a stream rather than whole. */
export async function checkRegularFile(path: string, options: { maxBytes: number; what: string }): Promise<void> {
  const file = await open(path, constants.O_RDONLY | constants.O_NONBLOCK).catch((error: NodeJS.ErrnoException) => {
    throw new BoundedReadError(
      'unreadable',
      `${path}: cannot read ${options.what} (${error.code === 'ENOENT' ? 'no such file' : (error.code ?? error.message)})`,
      { cause: error },
    );
  });
  try {
    const stats = await file.stat();
    if (!stats.isFile())
      throw new BoundedReadError('not-a-regular-file', `${path} is not a regular file: give ${options.what} as a file`);
    if (stats.size > options.maxBytes)
      throw new BoundedReadError(
        'input-too-large',
        `${path} is larger than the ${options.maxBytes / MiB} MiB allowed for ${options.what}`,
      );
  } finally {
    await file.close();
  }
}
