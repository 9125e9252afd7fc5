// POST /graphql: GitHub's GraphQL endpoint over the simulator's world. Order as GitHub: authenticate,
// parse, validate against the real schema, check static limits (pagination, nodes), charge the
// query's cost to the token's `graphql` bucket, then execute. Every answer carries rate headers.
import { execute, GraphQLError, parse, specifiedRules, validate, type DocumentNode } from 'graphql';
import { jsonResponse, type SimContext, type SimRequest, type SimResponse } from '../http/exchange.js';
import { rateLimitHeaders } from '../http/rate-limits.js';
import { formatExecutionError, formatSyntaxError, formatValidationErrors, type GithubGraphqlError } from './errors.js';
import { analyzeQuery } from './limits.js';
import { fieldResolver, rootValue, type GraphqlViewer, type RateLimitView, type ResolverContext } from './resolvers.js';
import { githubSchema } from './schema.js';

export interface GraphqlOptions {
  /** Who a token is; null answers 401 Bad credentials. Default: every token is one synthetic user. */
  viewerForToken?: (token: string) => GraphqlViewer | null;
}

/** The user every token stands for unless `viewerForToken` says otherwise. */
export const defaultViewer: GraphqlViewer = { id: 9_000_001, login: 'abp-sim' };

const authDocumentation =
  'https://docs.github.com/graphql/guides/forming-calls-with-graphql#authenticating-with-graphql';

interface GraphqlBody {
  query: string;
  variables: Record<string, unknown>;
  operationName: string | null;
}

function readBody(body: string): GraphqlBody | { invalidJson: true } | { missingQuery: true } {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return { invalidJson: true };
  }
  if (typeof value !== 'object' || value === null) return { invalidJson: true };
  const { query, variables, operationName } = value as Record<string, unknown>;
  if (typeof query !== 'string') return { missingQuery: true };
  return {
    query,
    variables: typeof variables === 'object' && variables !== null ? (variables as Record<string, unknown>) : {},
    operationName: typeof operationName === 'string' ? operationName : null,
  };
}

export async function executeGraphql(
  request: SimRequest,
  ctx: SimContext,
  options: GraphqlOptions = {},
): Promise<SimResponse> {
  if (request.token === null) {
    return jsonResponse(401, {
      message: 'This endpoint requires you to be authenticated.',
      documentation_url: authDocumentation,
    });
  }
  const viewer = options.viewerForToken ? options.viewerForToken(request.token) : defaultViewer;
  if (!viewer) {
    return jsonResponse(401, {
      message: 'Bad credentials',
      documentation_url: 'https://docs.github.com/graphql',
      status: '401',
    });
  }
  const token = request.token;
  const peeked = (): Record<string, string> => rateLimitHeaders(ctx.rateLimits.peek(token, 'graphql'));
  const refuse = (errors: GithubGraphqlError[]): SimResponse => jsonResponse(200, { errors }, peeked());

  if (request.method !== 'POST') {
    return jsonResponse(404, { message: 'Not Found', documentation_url: 'https://docs.github.com/graphql' }, peeked());
  }
  const body = readBody(request.body);
  if ('invalidJson' in body) {
    return jsonResponse(
      400,
      { message: 'Problems parsing JSON', documentation_url: 'https://docs.github.com/graphql' },
      peeked(),
    );
  }
  if ('missingQuery' in body) return refuse([{ message: 'A query attribute must be specified and must be a string.' }]);

  let document: DocumentNode;
  try {
    document = parse(body.query);
  } catch (error) {
    if (error instanceof GraphQLError) return refuse([formatSyntaxError(error, body.query)]);
    throw error;
  }
  const schema = githubSchema();
  if (validate(schema, document, specifiedRules).length > 0) {
    return refuse(formatValidationErrors(schema, document, specifiedRules));
  }
  const analysis = analyzeQuery(schema, document, body.variables, body.operationName);
  if (analysis.errors.length > 0) return refuse(analysis.errors);

  const state = analysis.dryRun
    ? { ...ctx.rateLimits.peek(token, 'graphql'), allowed: true }
    : ctx.rateLimits.spend(token, 'graphql', analysis.cost);
  if (!state.allowed) {
    return jsonResponse(
      200,
      { errors: [{ type: 'RATE_LIMITED', message: `API rate limit exceeded for user ID ${viewer.id}.` }] },
      rateLimitHeaders(state),
    );
  }
  const rateLimit: RateLimitView = {
    cost: analysis.cost,
    limit: state.limit,
    remaining: state.remaining,
    used: state.used,
    resetAt: new Date(state.reset * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z'),
    nodeCount: analysis.nodeCount,
  };
  const contextValue: ResolverContext = { world: ctx.world, baseUrl: ctx.baseUrl, viewer, rateLimit };
  const result = await execute({
    schema,
    document,
    rootValue: rootValue(),
    contextValue,
    variableValues: body.variables,
    operationName: body.operationName,
    fieldResolver,
  });
  const response: { data?: unknown; errors?: GithubGraphqlError[] } = {};
  if (result.data !== undefined) response.data = result.data;
  if (result.errors && result.errors.length > 0) response.errors = result.errors.map(formatExecutionError);
  return jsonResponse(200, response, rateLimitHeaders(state));
}
