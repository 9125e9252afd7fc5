// Fixed time windows counted per key: the bookkeeping under primary rate limits (per token and
// resource) and secondary limits (points and content creation per token, a minute or an hour).

export interface Window {
  /** Epoch milliseconds when the window opened. */
  startedAt: number;
  used: number;
}

export class FixedWindows {
  private readonly windows = new Map<string, Window>();

  constructor(private readonly now: () => number) {}

  /** The window `key` counts in at `nowMs`: a fresh, empty one once the last has run `seconds`. */
  current(key: string, seconds: number, nowMs: number = this.now()): Window {
    let window = this.windows.get(key);
    if (!window || nowMs >= window.startedAt + seconds * 1000) {
      window = { startedAt: nowMs, used: 0 };
      this.windows.set(key, window);
    }
    return window;
  }
}
