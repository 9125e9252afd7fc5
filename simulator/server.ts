// The simulator's one HTTP server: GraphQL at /graphql, git's smart HTTP under /git, and the REST
// routes everywhere else, over one world. Bad tokens are refused as GitHub refuses them.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { serveGit } from './git/http-backend.js';
import { defaultViewer, executeGraphql } from './graphql/execute.js';
import { githubSchema } from './graphql/schema.js';
import { jsonResponse, type SimRequest, type SimResponse } from './http/exchange.js';
import { githubRateLimits, RateLimits, type RateLimitPolicy, type RateResource } from './http/rate-limits.js';
import { handleRest, type RestContext } from './rest/handler.js';
import { SecondaryLimits, type SecondaryLimitOptions } from './rest/secondary-limits.js';
import type { WorldReader } from './world/model.js';

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
}

export interface RunningSimulator {
  /** Base of the REST API: what GITHUB_API_URL is set to. */
  apiUrl: string;
  graphqlUrl: string;
  /** Clone URLs are `<gitUrl>/<owner>/<name>.git`, the web URL plus `.git` as on GitHub. */
  gitUrl: string;
  context: RestContext;
  close(): Promise<void>;
}

export function toSimRequest(request: IncomingMessage, body: string): SimRequest {
  const url = new URL(request.url ?? '/', 'http://simulator.invalid');
  const headers: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(request.headers)) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  const token = /^(?:token|bearer)\s+(\S+)$/i.exec(headers['authorization'] ?? '')?.[1] ?? null;
  return { method: request.method ?? 'GET', path: url.pathname, query: url.searchParams, headers, body, token };
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

const badCredentials = jsonResponse(401, { message: 'Bad credentials', documentation_url: 'https://docs.github.com/rest', status: '401' });
const notFound = jsonResponse(404, { message: 'Not Found', documentation_url: 'https://docs.github.com/rest', status: '404' });

export async function startSimulator(options: SimulatorOptions): Promise<RunningSimulator> {
  // Building GitHub's schema takes a moment; pay it before the first request, not during it.
  githubSchema();
  const now = options.now ?? Date.now;
  const rateLimits = new RateLimits(now, { ...githubRateLimits, ...options.rateLimits });
  const secondary = new SecondaryLimits(now, options.secondaryLimits);
  const context: RestContext = { world: options.world, rateLimits, secondaryLimits: secondary, baseUrl: '', now };
  const accepts = (token: string) => options.tokens.has(token);

  async function answer(request: SimRequest): Promise<SimResponse> {
    if (request.path === '/graphql' && request.method === 'POST') {
      return executeGraphql(request, context, { viewerForToken: (token) => (accepts(token) ? defaultViewer : null) });
    }
    if (request.token !== null && !accepts(request.token)) return badCredentials;
    return handleRest(request, context) ?? notFound;
  }

  const server: Server = createServer((request: IncomingMessage, response: ServerResponse) => {
    if (options.gitRoot && serveGit({ projectRoot: options.gitRoot, canPush: options.canPush ?? (() => false) }, request, response)) return;
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
        response.writeHead(500, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify({ message: `simulator error: ${(error as Error).message}` }));
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
    close: () =>
      new Promise<void>((closed, failed) => {
        server.closeAllConnections();
        server.close((error) => (error ? failed(error) : closed()));
      }),
  };
}
