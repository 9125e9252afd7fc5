// Answers that may be up to `maxAgeMs` old, computed once however many requests ask at the same time: the API's task
// listing and task views read the database (through the worker on PGlite), and a burst of consumers must cost one read,
// not one each. A failed computation is not kept, so the next request tries again. At most `maxEntries` keys are kept;
// the oldest goes first.
export interface FreshCache<V> {
  get(key: string, compute: () => Promise<V>): Promise<V>;
}

export function createFreshCache<V>(options: {
  maxAgeMs: number;
  maxEntries: number;
  now?: () => number;
}): FreshCache<V> {
  const now = options.now ?? Date.now;
  const kept = new Map<string, { at: number; value: Promise<V> }>();
  return {
    get(key, compute) {
      const found = kept.get(key);
      if (found !== undefined && now() - found.at < options.maxAgeMs) return found.value;
      kept.delete(key);
      const value = compute();
      kept.set(key, { at: now(), value });
      value.catch(() => {
        if (kept.get(key)?.value === value) kept.delete(key);
      });
      if (kept.size > options.maxEntries) kept.delete(kept.keys().next().value as string);
      return value;
    },
  };
}
