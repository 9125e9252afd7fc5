// The simulator's one HTTP server: GraphQL at /graphql, git's smart HTTP at the clone URLs, and the
// REST routes everywhere else, over one world. Bad tokens are refused as GitHub refuses them, and a
// fault plan, when given, makes the API misbehave on a seeded schedule.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { FaultInjector, withShiftingSearch, type FaultPlan } from './faults.js';
import { serveGit } from './git/http-backend.js';
import { defaultViewer, executeGraphql } from './graphql/execute.js';
import { githubSchema } from './graphql/schema.js';
import { jsonResponse, type SimRequest, type SimResponse } from './http/exchange.js';
import { githubRateLimits, RateLimits, type RateLimitPolicy, type RateResource } from './http/rate-limits.js';
import { handleRest, type RestContext } from './rest/handler.js';
import { SecondaryLimits, secondaryLimitMessage, type SecondaryLimitOptions } from './rest/secondary-limits.js';
import { isWorldWriter, type WorldReader } from './world/model.js';

export interface SimulatorOptions {
  world: WorldReader;
  host?: string;
  /** 0 (the default) lets the kernel pick a free port. */
  port?: number;
  /**
   * Tokens the simulator accepts; any other token is answered 401 Bad credentials. Read on every
   * request, so the caller may add tokens while the simulator runs.
   */
  tokens: ReadonlySet<string>;
  /** Folder of `<owner>/<name>.git` bare repositories served over HTTP; null when the world has none. */
  gitRoot?: string | null;
  /** Which repositories accept pushes (forks); default: none. */
  canPush?: (owner: string, name: string) => boolean;
  now?: () => number;
  /** Primary-limit policies that replace GitHub's per resource (tests shrink a bucket to reach its limit). */
  rateLimits?: Partial<Record<RateResource, RateLimitPolicy>>;
  /** Secondary-limit options over GitHub's (`githubSecondaryLimits`). */
  secondaryLimits?: Partial<SecondaryLimitOptions>;
  /** Holds every answer this long before sending it, so requests overlap (the concurrency limit). */
  responseDelayMs?: number;
  /** Seeded faults on the API routes (git is left alone); none when absent. */
  faults?: FaultPlan;
}

export interface RunningSimulator {
  /** Base of the REST API: what GITHUB_API_URL is set to. */
  apiUrl: string;
  graphqlUrl: string;
  /** Clone URLs are `<gitUrl>/<owner>/<name>.git`, the web URL plus `.git` as on GitHub. */
  gitUrl: string;
  context: RestContext;
  /** API requests answered so far (REST and GraphQL, faults included; git not counted). */
  apiRequests(): number;
  close(): Promise<void>;
}

export function toSimRequest(request: IncomingMessage, body: string): SimRequest {
  const url = new URL(request.url ?? '/', 'http://simulator.invalid');
  const headers: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(request.headers))
    headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  const token = /^(?:token|bearer)\s+(\S+)$/i.exec(headers['authorization'] ?? '')?.[1] ?? null;
  return { method: request.method ?? 'GET', path: url.pathname, query: url.searchParams, headers, body, token };
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

const badCredentials = jsonResponse(401, {
  message: 'Bad credentials',
  documentation_url: 'https://docs.github.com/rest',
  status: '401',
});
const notFound = jsonResponse(404, {
  message: 'Not Found',
  documentation_url: 'https://docs.github.com/rest',
  status: '404',
});

function serverError(status: 502 | 503): SimResponse {
  // GitHub's edge answers these with an HTML page; clients see a 5xx and must retry.
  return {
    status,
    headers: { 'content-type': 'text/html; charset=utf-8' },
    body: `<html><body><h1>${status === 502 ? 'Server Error' : 'No server is currently available to service your request.'}</h1></body></html>\n`,
  };
}

function injectedSecondaryLimit(retryAfterSeconds: number, requestNumber: number): SimResponse {
  const body = {
    message: secondaryLimitMessage('points', `FAULT:${requestNumber}`),
    documentation_url:
      'https://docs.github.com/rest/using-the-rest-api/rate-limits-for-the-rest-api#about-secondary-rate-limits',
    status: '403',
  };
  return jsonResponse(403, body, { 'retry-after': String(retryAfterSeconds) });
}

export async function startSimulator(options: SimulatorOptions): Promise<RunningSimulator> {
  // Building GitHub's schema takes a moment; pay it before the first request, not during it.
  githubSchema();
  const now = options.now ?? Date.now;
  const rateLimits = new RateLimits(now, { ...githubRateLimits, ...options.rateLimits });
  const secondary = new SecondaryLimits(now, options.secondaryLimits);
  const faults = options.faults ? new FaultInjector(options.faults) : null;
  const world =
    options.faults && options.faults.shiftingSearchRate > 0
      ? withShiftingSearch(options.world, options.faults)
      : options.world;
  const context: RestContext = { world, rateLimits, secondaryLimits: secondary, baseUrl: '', now };
  const accepts = (token: string) => options.tokens.has(token);
  let requests = 0;
  const git = {
    projectRoot: options.gitRoot ?? '',
    canPush: options.canPush ?? (() => false),
    // A push to a fork may move the head of an open pull request: the world fires `synchronize`.
    onPush: (owner: string, name: string) => {
      if (isWorldWriter(options.world)) options.world.notePush(owner, name);
    },
  };

  async function answer(request: SimRequest): Promise<SimResponse> {
    const fault = faults?.next() ?? { kind: 'none' };
    requests += 1;
    switch (fault.kind) {
      case 'server-error':
        return serverError(fault.status);
      case 'secondary-limit':
        return injectedSecondaryLimit(fault.retryAfterSeconds, requests);
      case 'slow':
        await sleep(fault.delayMs);
        break;
      case 'none':
        break;
    }
    if (request.path === '/graphql' && request.method === 'POST') {
      return executeGraphql(request, context, { viewerForToken: (token) => (accepts(token) ? defaultViewer : null) });
    }
    if (request.token !== null && !accepts(request.token)) return badCredentials;
    return handleRest(request, context) ?? notFound;
  }

  const server: Server = createServer((request: IncomingMessage, response: ServerResponse) => {
    if (options.gitRoot && serveGit(git, request, response)) return;
    void (async () => {
      const simRequest = toSimRequest(request, await readBody(request));
      // Bracketing every request lets the secondary limit see how many are in flight per token.
      const end = secondary.begin(simRequest.token);
      try {
        const reply = await answer(simRequest);
        // Hold the answer, not the request: it was admitted while the others were in flight.
        if (options.responseDelayMs) await sleep(options.responseDelayMs);
        response.writeHead(reply.status, reply.headers).end(reply.body);
      } catch (error) {
        response
          .writeHead(500, { 'content-type': 'application/json; charset=utf-8' })
          .end(JSON.stringify({ message: `simulator error: ${(error as Error).message}` }));
      } finally {
        end();
      }
    })();
  });
  await new Promise<void>((listening, failed) => {
    server.once('error', failed);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => listening());
  });
  const { address, port } = server.address() as AddressInfo;
  const base = `http://${address.includes(':') ? `[${address}]` : address}:${port}`;
  context.baseUrl = base;
  return {
    apiUrl: base,
    graphqlUrl: `${base}/graphql`,
    gitUrl: base,
    context,
    apiRequests: () => requests,
    close: () =>
      new Promise<void>((closed, failed) => {
        server.closeAllConnections();
        server.close((error) => (error ? failed(error) : closed()));
      }),
  };
}
