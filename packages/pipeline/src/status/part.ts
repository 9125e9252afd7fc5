// One fact of `abp status` as data: what was found, or why nothing was. Each part degrades on its own, so a damaged log
// or a stopped worker never hides the registry version or the bundles; the reason says what to do about it.

export type Part<T> =
  /** The source was read. */
  | { $case: 'found'; value: T }
  /** Nothing there yet (a fresh data directory): `detail` names the command that makes it. */
  | { $case: 'absent'; detail: string }
  /** There, or expected there, but not readable now (a server down, a damaged file): `detail` says why and what to do. */
  | { $case: 'unavailable'; detail: string };

export function found<T>(value: T): Part<T> {
  return { $case: 'found', value };
}

export function absent<T>(detail: string): Part<T> {
  return { $case: 'absent', detail };
}

export function unavailable<T>(detail: string): Part<T> {
  return { $case: 'unavailable', detail };
}

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Runs one part's read; anything it throws becomes that part's `unavailable`, so the other parts still report. */
export async function settle<T>(read: () => Promise<Part<T>>): Promise<Part<T>> {
  try {
    return await read();
  } catch (error) {
    return unavailable(messageOf(error));
  }
}
