// HTTP byte ranges (RFC 9110 §14) for the content `abp serve` hands out: which part of a representation a Range header
// asks for, and whether an If-Range validator still allows answering with a part. Pure functions over header values.

export type RangeRequest =
  /** Serve the whole representation: no Range, one this server does not answer with a part, or one it must ignore. */
  | { $case: 'whole' }
  /** A single satisfiable range; `end` is inclusive, as Content-Range writes it. */
  | { $case: 'part'; start: number; end: number }
  /** A well-formed byte range none of which lies inside the representation: 416. */
  | { $case: 'unsatisfiable' };

const BYTE_RANGE = /^(\d*)-(\d*)$/;

/**
 * What `header` (a Range value) asks of a representation of `size` bytes. Several ranges in one request are answered
 * with the whole representation (RFC 9110 lets a server ignore Range; multipart/byteranges buys downloaders nothing
 * here), and so is a header this parser cannot read, as the RFC requires.
 */
export function parseRange(header: string | undefined, size: number): RangeRequest {
  if (header === undefined) return { $case: 'whole' };
  const equals = header.indexOf('=');
  if (equals === -1 || header.slice(0, equals).trim().toLowerCase() !== 'bytes') return { $case: 'whole' };
  const specs = header
    .slice(equals + 1)
    .split(',')
    .map((spec) => spec.trim());
  if (specs.length !== 1) return { $case: 'whole' };
  const match = BYTE_RANGE.exec(specs[0] ?? '');
  if (match === null) return { $case: 'whole' };
  const [, first = '', last = ''] = match;
  if (first === '' && last === '') return { $case: 'whole' };
  if (first === '') {
    // A suffix: the last N bytes, all of them when N is larger than the representation.
    const length = Number(last);
    if (!Number.isSafeInteger(length)) return { $case: 'whole' };
    if (length === 0 || size === 0) return { $case: 'unsatisfiable' };
    return { $case: 'part', start: Math.max(0, size - length), end: size - 1 };
  }
  const start = Number(first);
  const end = last === '' ? size - 1 : Number(last);
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end)) return { $case: 'whole' };
  if (last !== '' && end < start) return { $case: 'whole' };
  if (start >= size) return { $case: 'unsatisfiable' };
  return { $case: 'part', start, end: Math.min(end, size - 1) };
}

/**
 * Whether a Range may be answered with a part given the request's If-Range: only while the client's copy is the current
 * one, which for this server means the strong entity tag it was sent (dates are not validators here, so a date asks for
 * the whole representation).
 */
export function rangeAllowed(ifRange: string | undefined, etag: string | undefined): boolean {
  if (ifRange === undefined) return true;
  return etag !== undefined && !ifRange.trim().startsWith('W/') && ifRange.trim() === etag;
}

/** Whether If-None-Match names `etag` (weak comparison, as RFC 9110 §13.1.2 prescribes), or is `*`. */
export function noneMatch(ifNoneMatch: string | undefined, etag: string | undefined): boolean {
  if (ifNoneMatch === undefined || etag === undefined) return false;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, '');
  const wanted = opaque(etag);
  return ifNoneMatch.split(',').some((tag) => tag.trim() === '*' || opaque(tag) === wanted);
}
