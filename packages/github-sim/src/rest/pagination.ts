// Page parameters and the `link` header in GitHub's format: `<url>; rel="prev"`, then next, last,
// first, comma-separated, with the request's own query kept and `page` moved to the end.

export interface PageRequest {
  perPage: number;
  page: number;
  offset: number;
}

const defaultPerPage = 30;
const maxPerPage = 100;

function positiveInteger(raw: string | null): number | null {
  if (raw === null || !/^\d+$/.test(raw.trim())) return null;
  const value = Number(raw.trim());
  return Number.isSafeInteger(value) && value > 0 ? value : null;
}

/** GitHub clamps `per_page` to 100 and reads anything unparsable as the default. */
export function readPage(query: URLSearchParams): PageRequest {
  const perPage = Math.min(positiveInteger(query.get('per_page')) ?? defaultPerPage, maxPerPage);
  const page = positiveInteger(query.get('page')) ?? 1;
  return { perPage, page, offset: (page - 1) * perPage };
}

/**
 * The `link` header for page `page` of a listing with `lastPage` pages, or null when a single page
 * holds everything. `url` is the canonical listing URL (GitHub uses `/repositories/{id}/...`).
 */
export function linkHeader(url: string, query: URLSearchParams, page: number, lastPage: number): string | null {
  if (lastPage <= 1 && page <= 1) return null;
  const at = (target: number): string => {
    const params = new URLSearchParams(query);
    params.delete('page');
    params.append('page', String(target));
    return `<${url}?${params.toString()}>`;
  };
  const parts: string[] = [];
  if (page > 1) parts.push(`${at(Math.min(page - 1, Math.max(lastPage, 1)))}; rel="prev"`);
  if (page < lastPage) {
    parts.push(`${at(page + 1)}; rel="next"`);
    parts.push(`${at(lastPage)}; rel="last"`);
  }
  if (page > 1) parts.push(`${at(1)}; rel="first"`);
  return parts.length > 0 ? parts.join(', ') : null;
}

export function pageCount(total: number, perPage: number): number {
  return Math.max(1, Math.ceil(total / perPage));
}
