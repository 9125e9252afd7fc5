// Serves `handleRest` over node:http on 127.0.0.1 for tests, turning node's request into a
// SimRequest the way the simulator's server does: lower-cased headers, the token from
// `Authorization: token|bearer <t>`, and secondary-limit bookkeeping around each request.
import { createServer } from 'node:http';
import type { IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { SimRequest } from '../../../simulator/http/exchange.js';
import { handleRest, secondaryLimitsFor } from '../../../simulator/rest/handler.js';
import type { RestContext } from '../../../simulator/rest/handler.js';

export interface RestTestServer {
  baseUrl: string;
  ctx: RestContext;
  close(): Promise<void>;
}

export interface ServeOptions {
  /** Holds each response this long, so requests overlap (concurrency limits). */
  delayMs?: number;
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export function toSimRequest(request: IncomingMessage, body: string): SimRequest {
  const url = new URL(request.url ?? '/', 'http://simulator.invalid');
  const headers: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(request.headers)) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  const auth = /^(?:token|bearer)\s+(\S+)$/i.exec(headers['authorization'] ?? '');
  return { method: request.method ?? 'GET', path: url.pathname, query: url.searchParams, headers, body, token: auth?.[1] ?? null };
}

/** Starts a server; `makeContext` receives the base URL once the port is known. */
export async function serveRest(makeContext: (baseUrl: string) => RestContext, options: ServeOptions = {}): Promise<RestTestServer> {
  // The context needs the base URL, known only once the server listens.
  const bound: { ctx?: RestContext } = {};
  const server = createServer((request, response) => {
    void (async () => {
      const simRequest = toSimRequest(request, await readBody(request));
      const { ctx } = bound;
      const end = ctx ? secondaryLimitsFor(ctx)?.begin(simRequest.token) : undefined;
      try {
        const answer = ctx ? handleRest(simRequest, ctx) : null;
        // Hold the answer, not the request: the request was admitted while others were in flight.
        if (options.delayMs) await sleep(options.delayMs);
        if (!answer) {
          response.writeHead(404, { 'content-type': 'application/json; charset=utf-8' });
          response.end(JSON.stringify({ message: 'Not Found', documentation_url: 'https://docs.github.com/rest', status: '404' }));
          return;
        }
        response.writeHead(answer.status, answer.headers);
        response.end(answer.body);
      } finally {
        end?.();
      }
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const baseUrl = `http://127.0.0.1:${port}`;
  const ctx = makeContext(baseUrl);
  bound.ctx = ctx;
  return {
    baseUrl,
    ctx,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
