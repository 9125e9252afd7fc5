// One HTTP exchange as plain data: the GraphQL and REST layers are functions from a request to a
// response over a context, so they are tested without sockets and served by one node:http server.
import type { WorldReader } from '../world/model.js';
import type { RateLimits } from './rate-limits.js';

export interface SimRequest {
  method: string;
  /** Path without the query string, e.g. `/repos/acme/widgets/issues`. */
  path: string;
  query: URLSearchParams;
  /** Lower-cased header names. */
  headers: Readonly<Record<string, string | undefined>>;
  body: string;
  /** The token from `Authorization: bearer|token <t>`, or null for an anonymous call. */
  token: string | null;
}

export interface SimResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export interface SimContext {
  world: WorldReader;
  rateLimits: RateLimits;
  /** Where the simulator is served, e.g. `http://127.0.0.1:40123`: REST urls and Link headers use it. */
  baseUrl: string;
  now: () => number;
}

/** A JSON response with GitHub's content type. */
export function jsonResponse(status: number, value: unknown, headers: Record<string, string> = {}): SimResponse {
  return {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
    body: JSON.stringify(value),
  };
}
