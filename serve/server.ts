// The HTTP server of `abp serve` on node:http: the routes it mounts, listening, and a clean close.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ServeError } from './errors.js';
import type { ServeLog } from './log.js';
import { createRouter } from './router.js';
import type { TaskSignaller } from './signaller.js';
import { webhookRoute } from './webhooks.js';

export interface ServerOptions {
  /** 0 lets the kernel pick a free port. */
  port: number;
  host: string;
  /** The secret of the GitHub webhook; every delivery's X-Hub-Signature-256 is checked against it. */
  webhookSecret: string;
  signaller: TaskSignaller;
  log: ServeLog;
}

export interface RunningServer {
  /** Base URL, e.g. `http://127.0.0.1:8080`; webhooks go to `${url}${WEBHOOK_PATH}`. */
  url: string;
  /** Stops taking connections and resolves once the requests in flight are answered. */
  close(): Promise<void>;
}

export async function startServer(options: ServerOptions): Promise<RunningServer> {
  if (options.webhookSecret.trim() === '') {
    throw new ServeError('invalid-setting', 'The webhook secret is empty: abp serve accepts only signed deliveries; set ABP_WEBHOOK_SECRET to the secret of the GitHub webhook');
  }
  const routes = [webhookRoute({ secret: options.webhookSecret, signaller: options.signaller, log: options.log })];
  const server = createServer(createRouter(routes, options.log));
  await new Promise<void>((listening, failed) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      failed(
        error.code === 'EADDRINUSE'
          ? new ServeError('port-in-use', `Port ${options.port} on ${options.host} is in use: choose another with --port, or stop what listens there`, { cause: error })
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
