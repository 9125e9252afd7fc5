// The HTTP routing of `abp serve` over node:http: exact paths, one handler per method, request bodies read up to a
// per-route cap, JSON answers. The webhook receiver is one route; the read-only API adds its own beside it.
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { ServeLog } from './log.js';

export interface ServeRequest {
  headers: IncomingHttpHeaders;
  url: URL;
  /** The whole body; never longer than the route's `maxBodyBytes`. */
  body: Buffer;
  remoteAddress: string | null;
}

export interface ServeReply {
  status: number;
  /** Sent as JSON. */
  body: unknown;
  headers?: Record<string, string>;
}

export interface Route {
  method: 'GET' | 'POST';
  path: string;
  /** Longer bodies are answered 413 without reaching the handler (0 for routes that take none). */
  maxBodyBytes: number;
  handle(request: ServeRequest): Promise<ServeReply>;
}

export function createRouter(routes: readonly Route[], log: ServeLog): (request: IncomingMessage, response: ServerResponse) => void {
  return (request, response) => {
    const method = request.method ?? 'GET';
    const url = new URL(request.url ?? '/', 'http://abp-serve.invalid');
    const remoteAddress = request.socket.remoteAddress ?? null;
    const refuse = (status: number, error: string, headers: Record<string, string> = {}): void => {
      log({ kind: 'request-refused', method, path: url.pathname, status, remoteAddress });
      // Read and drop what the client still sends, so it sees this answer rather than a reset connection.
      request.resume();
      send(response, { status, body: { error }, headers });
    };

    const atPath = routes.filter((route) => route.path === url.pathname);
    const route = atPath.find((candidate) => candidate.method === method);
    if (atPath.length === 0) return refuse(404, `nothing is served at ${url.pathname}`);
    if (!route) return refuse(405, `${method} is not allowed on ${url.pathname}: use ${atPath.map((r) => r.method).join(' or ')}`, { allow: atPath.map((r) => r.method).join(', ') });
    void (async () => {
      try {
        const body = await readBody(request, route.maxBodyBytes);
        if (body === null) return refuse(413, `the body is larger than ${route.maxBodyBytes} bytes`);
        send(response, await route.handle({ headers: request.headers, url, body, remoteAddress }));
      } catch (error) {
        log({ kind: 'request-failed', method, path: url.pathname, error: error instanceof Error ? error.message : String(error) });
        if (!response.headersSent) send(response, { status: 500, body: { error: 'internal error; see the abp serve log' } });
        else response.destroy();
      }
    })();
  };
}

/** The body, or null when it is longer than `maxBytes` (then nothing past the cap is kept). */
function readBody(request: IncomingMessage, maxBytes: number): Promise<Buffer | null> {
  if (Number(request.headers['content-length']) > maxBytes) return Promise.resolve(null);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let length = 0;
    request.on('data', (chunk: Buffer) => {
      length += chunk.length;
      if (length <= maxBytes) chunks.push(chunk);
    });
    request.once('end', () => resolve(length <= maxBytes ? Buffer.concat(chunks) : null));
    request.once('error', reject);
  });
}

function send(response: ServerResponse, reply: ServeReply): void {
  const text = JSON.stringify(reply.body);
  response.writeHead(reply.status, { 'content-type': 'application/json; charset=utf-8', 'content-length': String(Buffer.byteLength(text)), ...reply.headers }).end(text);
}
