// Seeded randomness for generated worlds: a 32-bit integer hash and a counter-based generator on
// top of it. Every fact is a pure function of (seed, stream, ids), never of call order, so a world
// can derive any record on demand and get the same bytes each time. Math.random is never used.

const GOLDEN = 0x9e3779b9;

/** Avalanche one 32-bit word: two multiply/xor-shift rounds (murmur3's finalizer constants). */
export function mix32(value: number): number {
  let x = value >>> 0;
  x ^= x >>> 16;
  x = Math.imul(x, 0x85ebca6b);
  x ^= x >>> 13;
  x = Math.imul(x, 0xc2b2ae35);
  x ^= x >>> 16;
  return x >>> 0;
}

/** Fold one more 32-bit word into a running hash; order matters, so (a, b) and (b, a) differ. */
function fold(hash: number, word: number): number {
  return mix32((hash ^ mix32((word + GOLDEN) >>> 0)) + Math.imul(hash, 5));
}

// Fixed-arity variants: the backlog derives millions of values and rest arrays would allocate.
export function hash2(a: number, b: number): number {
  return fold(fold(0x2545f491, a), b);
}

export function hash3(a: number, b: number, c: number): number {
  return fold(fold(fold(0x2545f491, a), b), c);
}

export function hash4(a: number, b: number, c: number, d: number): number {
  return fold(fold(fold(fold(0x2545f491, a), b), c), d);
}

/** FNV-1a of a string's UTF-16 units: stable ids for names the world has no number for (logins, labels). */
export function hashString(text: string): number {
  let hash = 2166136261;
  for (const char of text) hash = Math.imul(hash ^ char.charCodeAt(0), 16777619) >>> 0;
  return hash;
}

/** A hash as a float in [0, 1). */
export function unit(hash: number): number {
  return hash / 0x1_0000_0000;
}

/** A generator over a 32-bit counter (splitmix-style): state advances by the golden ratio, output is the mixed state. */
export class Rng {
  private state: number;

  constructor(seed: number) {
    this.state = mix32(seed) >>> 0;
  }

  /** Restart from another seed; lets hot loops reuse one generator instead of allocating one per record. */
  reseed(seed: number): this {
    this.state = mix32(seed) >>> 0;
    return this;
  }

  next(): number {
    this.state = (this.state + GOLDEN) >>> 0;
    return mix32(this.state ^ (this.state >>> 7));
  }

  /** Uniform in [0, 1). */
  float(): number {
    return this.next() / 0x1_0000_0000;
  }

  /** Uniform integer in [0, bound). */
  int(bound: number): number {
    return Math.floor(this.float() * bound);
  }

  /** Uniform integer in [min, max]. */
  between(min: number, max: number): number {
    return min + this.int(max - min + 1);
  }

  chance(probability: number): boolean {
    return this.float() < probability;
  }

  pick<T>(items: readonly T[]): T {
    const item = items[this.int(items.length)];
    if (item === undefined) throw new RangeError('pick from an empty list');
    return item;
  }

  /** Exponentially distributed with the given mean (delays between events). */
  exponential(mean: number): number {
    return -Math.log(1 - this.float()) * mean;
  }
}

/** A categorical distribution, sampled with one uniform draw. */
export class Weighted<T> {
  private readonly values: T[];
  private readonly cumulative: number[];

  constructor(entries: readonly (readonly [T, number])[]) {
    let total = 0;
    this.values = entries.map(([value]) => value);
    this.cumulative = entries.map(([, weight]) => (total += weight));
    if (!(total > 0)) throw new RangeError('weights must add up to more than zero');
  }

  /** The value whose cumulative band contains `u` in [0, 1). */
  at(u: number): T {
    const target = u * (this.cumulative[this.cumulative.length - 1] ?? 0);
    let low = 0;
    let high = this.cumulative.length - 1;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if ((this.cumulative[middle] ?? 0) > target) high = middle;
      else low = middle + 1;
    }
    return this.values[low] as T;
  }

  sample(rng: Rng): T {
    return this.at(rng.float());
  }
}

/** A 40-hex git object id derived from the given words. */
export function objectId(a: number, b: number, c: number, d: number): string {
  let hex = '';
  let hash = hash4(a, b, c, d);
  for (let part = 0; part < 5; part++) {
    hex += hash.toString(16).padStart(8, '0');
    hash = mix32(hash + GOLDEN * (part + 1));
  }
  return hex;
}
