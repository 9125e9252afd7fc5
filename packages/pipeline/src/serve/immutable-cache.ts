// Content-addressed files held in memory: a bundle's bytes never change under its digest, so once read they can be
// answered from memory for as long as there is room, with no file opened or read per request (a streamed file costs a
// read and an event-loop turn per 64 KiB). Only files up to `maxEntryBytes` are kept, and at most `maxBytes` in all,
// the least recently used leaving first; larger files are streamed from disk.
export interface ImmutableCache {
  /** The bytes kept under `key`, now the most recently used; undefined when not kept. */
  lookup(key: string): Buffer | undefined;
  /** Keeps `bytes` under `key` if they fit, making room by dropping the least recently used. */
  keep(key: string, bytes: Buffer): void;
  /** Whether a file of `size` bytes would be kept. */
  fits(size: number): boolean;
}

export function createImmutableCache(options: { maxBytes: number; maxEntryBytes: number }): ImmutableCache {
  // A Map iterates in insertion order: re-inserting on every use keeps the least recently used first.
  const kept = new Map<string, Buffer>();
  let total = 0;
  const fits = (size: number) => size <= Math.min(options.maxEntryBytes, options.maxBytes);
  return {
    fits,
    lookup(key) {
      const found = kept.get(key);
      if (found !== undefined) {
        kept.delete(key);
        kept.set(key, found);
      }
      return found;
    },
    keep(key, bytes) {
      if (!fits(bytes.length) || kept.has(key)) return;
      kept.set(key, bytes);
      total += bytes.length;
      for (const [oldest, old] of kept) {
        if (total <= options.maxBytes) break;
        kept.delete(oldest);
        total -= old.length;
      }
    },
  };
}
