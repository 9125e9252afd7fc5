// The HTTP server of `abp serve` on node:http: the routes it mounts (the webhook receiver when it has a secret, the
// read-only API when it has a data directory), listening, and a clean close.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { apiRoutes, type ApiOptions } from './api.js';
import { ServeError } from './errors.js';
import type { ServeLog } from './log.js';
import { createRouter, type Route } from './router.js';
import type { TaskSignaller } from './signaller.js';
import { webhookRoute } from './webhooks.js';

export interface ServerOptions {
  /** 0 lets the kernel pick a free port. */
  port: number;
  host: string;
  /**
   * The secret of the GitHub webhook; every delivery's X-Hub-Signature-256 is checked against it. Without it there is
   * no webhook route at all: an unsigned receiver would let anyone poke task workflows.
   */
  webhookSecret?: string;
  /** Whom the webhook receiver signals; required with `webhookSecret`. */
  signaller?: TaskSignaller;
  /** The read-only API under /v1 (serve/api.ts); not mounted without it. */
  api?: ApiOptions;
  log: ServeLog;
}

export interface RunningServer {
  /** Base URL, e.g. `http://127.0.0.1:8080`; webhooks go to `${url}${WEBHOOK_PATH}`, the API is under `${url}${API_PREFIX}`. */
  url: string;
  /** Stops taking connections and resolves once the requests in flight are answered. */
  close(): Promise<void>;
}

function routesOf(options: ServerOptions): Route[] {
  const routes: Route[] = [];
  if (options.webhookSecret !== undefined) {
    if (options.webhookSecret.trim() === '') {
      throw new ServeError(
        'invalid-setting',
        'The webhook secret is empty: abp serve accepts only signed deliveries; set ABP_WEBHOOK_SECRET to the secret of the GitHub webhook, or unset it to serve the read-only API alone',
      );
    }
    if (options.signaller === undefined)
      throw new ServeError(
        'invalid-setting',
        'A webhook secret was given without a signaller: the receiver needs Temporal to signal the task workflows',
      );
    routes.push(webhookRoute({ secret: options.webhookSecret, signaller: options.signaller, log: options.log }));
  }
  if (options.api !== undefined) routes.push(...apiRoutes(options.api));
  if (routes.length === 0)
    throw new ServeError(
      'invalid-setting',
      'Nothing to serve: give the server a webhook secret, the read-only API, or both',
    );
  return routes;
}

/** A client has this long to send its request's headers, and this long for the whole request, body included. */
export const HEADERS_TIMEOUT_MS = 10_000;
export const REQUEST_TIMEOUT_MS = 30_000;

export async function startServer(options: ServerOptions): Promise<RunningServer> {
  const server = createServer(
    { headersTimeout: HEADERS_TIMEOUT_MS, requestTimeout: REQUEST_TIMEOUT_MS },
    createRouter(routesOf(options), options.log),
  );
  // Node's parser refuses a method it does not know before any route sees it; RFC 9110 asks for 501, not its 400.
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    if (!socket.writable) {
      socket.destroy();
      return;
    }
    const [status, text, why] =
      error.code === 'HPE_INVALID_METHOD'
        ? [501, 'Not Implemented', 'that method is not one abp serve implements: use GET or HEAD']
        : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? [408, 'Request Timeout', `send the request within ${REQUEST_TIMEOUT_MS / 1000} s`]
          : error.code === 'HPE_HEADER_OVERFLOW'
            ? [431, 'Request Header Fields Too Large', 'the request headers are too large']
            : [400, 'Bad Request', 'malformed request'];
    const body = JSON.stringify({ error: why });
    socket.end(
      `HTTP/1.1 ${status} ${text}\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
    );
  });
  await new Promise<void>((listening, failed) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      failed(
        error.code === 'EADDRINUSE'
          ? new ServeError(
              'port-in-use',
              `Port ${options.port} on ${options.host} is in use: choose another with --port, or stop what listens there`,
              { cause: error },
            )
          : error,
      );
    });
    server.listen(options.port, options.host, listening);
  });
  const { address, port } = server.address() as AddressInfo;
  return {
    url: `http://${address.includes(':') ? `[${address}]` : address}:${port}`,
    close: () =>
      new Promise<void>((closed, failed) => {
        server.close((error) => (error ? failed(error) : closed()));
        // Keep-alive connections with no request in flight would otherwise hold close() open.
        server.closeIdleConnections();
      }),
  };
}
