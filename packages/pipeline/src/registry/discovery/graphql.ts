// What every discovery query shares: the API cost it is charged (requests sent, `rateLimit { cost }` points), the
// reading of an answer against a zod schema, and GitHub's errors turned into DiscoveryError. An alias GitHub cannot
// resolve (a repository deleted, renamed away or made private) is reported, not thrown: the rest of the answer stands.
import { GraphqlResponseError } from '@octokit/graphql';
import { z } from 'zod';
import type { GithubClient } from '../../github/client.js';
import { DiscoveryError } from './errors.js';

/** GraphQL calls sent (retries by the client's plugins not counted) and the rate-limit points GitHub charged. */
export interface DiscoveryCost {
  requests: number;
  points: number;
}

export function addCost(total: DiscoveryCost, more: DiscoveryCost): void {
  total.requests += more.requests;
  total.points += more.points;
}

const rateLimitAnswer = z.object({ rateLimit: z.object({ cost: z.int().nonnegative() }) });

/** Counts one answered request and the points its `rateLimit { cost }` says it was charged. */
export function charge(cost: DiscoveryCost, data: unknown): void {
  const answer = rateLimitAnswer.safeParse(data);
  cost.requests += 1;
  cost.points += answer.success ? answer.data.rateLimit.cost : 0;
}

export function queryFailed(error: unknown, what: string): DiscoveryError {
  if (error instanceof DiscoveryError) return error;
  const detail =
    error instanceof GraphqlResponseError
      ? (error.errors ?? []).map((entry) => entry.message).join('; ')
      : (error as Error).message;
  return new DiscoveryError('github-query-failed', `GitHub failed ${what}: ${detail}`, { cause: error });
}

/** The answer read against `schema`, or a DiscoveryError naming what was asked and where the shape differs. */
export function readAnswer<T>(schema: z.ZodType<T>, data: unknown, what: string): T {
  const result = schema.safeParse(data);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  throw new DiscoveryError(
    'unexpected-answer',
    `GitHub's answer to ${what} does not have the shape asked for: ${issue?.path.join('.') ?? ''}: ${issue?.message ?? ''}`,
  );
}

/**
 * Runs one query and charges its cost. Resolves with the data and the top-level aliases GitHub answered NOT_FOUND;
 * any other error rejects.
 */
export async function runQuery(
  octokit: GithubClient,
  query: string,
  variables: Record<string, unknown>,
  cost: DiscoveryCost,
  what: string,
): Promise<{ data: Record<string, unknown>; unresolved: Set<string> }> {
  try {
    const data = await octokit.graphql<Record<string, unknown>>(query, variables);
    charge(cost, data);
    return { data, unresolved: new Set() };
  } catch (error) {
    const errors = error instanceof GraphqlResponseError ? (error.errors ?? []) : [];
    const unresolved =
      errors.length > 0 && errors.every((entry) => entry.type === 'NOT_FOUND' && entry.path.length === 1);
    if (!unresolved) throw queryFailed(error, what);
    const data = (error as GraphqlResponseError<Record<string, unknown> | undefined>).data ?? {};
    charge(cost, data);
    return { data, unresolved: new Set(errors.map((entry) => String(entry.path[0]))) };
  }
}

/** Aliased `repository()` fields in one query, each alias with its own variables. */
export class AliasedQuery {
  readonly variables: Record<string, unknown> = {};
  private readonly declarations: string[] = [];
  private readonly selections: string[] = [];

  /** Adds `c<n>: repository(...) { <fields> }`; `variable` declares `$<name><n>` and returns its reference. */
  add(
    nameWithOwner: string,
    fields: (variable: (name: string, type: string, value: unknown) => string) => string,
  ): string {
    const index = this.selections.length;
    const variable = (name: string, type: string, value: unknown): string => {
      this.variables[`${name}${index}`] = value;
      this.declarations.push(`$${name}${index}: ${type}`);
      return `$${name}${index}`;
    };
    const [owner = '', repo = ''] = nameWithOwner.split('/');
    const alias = `c${index}`;
    const head = `${alias}: repository(owner: ${variable('o', 'String!', owner)}, name: ${variable('n', 'String!', repo)})`;
    this.selections.push(`  ${head} { ${fields(variable)} }`);
    return alias;
  }

  get size(): number {
    return this.selections.length;
  }

  text(operation: string, fragment = ''): string {
    return `query ${operation}(${this.declarations.join(', ')}) {\n  rateLimit { cost }\n${this.selections.join('\n')}\n}\n${fragment}`;
  }
}
