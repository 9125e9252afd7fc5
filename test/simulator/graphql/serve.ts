// Serves executeGraphql on 127.0.0.1:0 for the tests, the way a client reaches GitHub: over HTTP.
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { executeGraphql, type GraphqlOptions } from '../../../simulator/graphql/execute.js';
import type { SimContext, SimRequest } from '../../../simulator/http/exchange.js';
import { RateLimits } from '../../../simulator/http/rate-limits.js';
import type { WorldReader } from '../../../simulator/world/model.js';

export interface GraphqlTestServer {
  baseUrl: string;
  context: SimContext;
  close: () => Promise<void>;
}

async function readAll(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function toSimRequest(request: IncomingMessage, body: string): SimRequest {
  const url = new URL(request.url ?? '/', 'http://127.0.0.1');
  const headers: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(request.headers)) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  const token = /^(?:bearer|token)\s+(\S+)$/i.exec(headers['authorization'] ?? '')?.[1] ?? null;
  return { method: request.method ?? 'GET', path: url.pathname, query: url.searchParams, headers, body, token };
}

export async function serveGraphql(world: WorldReader, rateLimits = new RateLimits(), options: GraphqlOptions = {}): Promise<GraphqlTestServer> {
  const context: SimContext = { world, rateLimits, baseUrl: '', now: Date.now };
  const server = createServer((request, response) => {
    void (async () => {
      try {
        const simRequest = toSimRequest(request, await readAll(request));
        const answer =
          simRequest.path === '/graphql'
            ? await executeGraphql(simRequest, context, options)
            : { status: 404, headers: { 'content-type': 'application/json' }, body: '{"message":"Not Found"}' };
        response.writeHead(answer.status, answer.headers).end(answer.body);
      } catch (error) {
        response.writeHead(500, { 'content-type': 'text/plain' }).end(String(error));
      }
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  context.baseUrl = `http://127.0.0.1:${port}`;
  return {
    baseUrl: context.baseUrl,
    context,
    close: () => new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve()))),
  };
}
