// `abp serve`: the read-only distribution API under /v1 (registry versions, draws, tasks, bundles, statements, trust
// roots, the transparency log) and, when ABP_WEBHOOK_SECRET is set, the GitHub webhook receiver that signals the task
// workflows, in the foreground until SIGINT or SIGTERM. Each request is logged as one JSON line on stdout. The
// pipeline's tasks come from the read path (task-reads/reader.ts); only the webhook route needs Temporal. With
// --published-only it serves the data directory alone, tasks frozen by hand (`abp freeze`) included.
import { Client, Connection } from '@temporalio/client';
import { API_PREFIX } from '../serve/api.js';
import { ServeError } from '../serve/errors.js';
import type { ServeLog } from '../serve/log.js';
import { createLogLines, REQUEST_LOG_ROTATION, rotatingWriter, type LogLines } from '../serve/log-lines.js';
import { startServer, type RunningServer } from '../serve/server.js';
import { createTemporalSignaller } from '../serve/signaller.js';
import { createTaskSource } from '../serve/tasks.js';
import { openTaskReads } from '../task-reads/reader.js';
import { WEBHOOK_PATH } from '../serve/webhooks.js';
import { resolveStackConfig } from '../worker/config.js';

export interface ServeCommandOptions {
  port: number;
  host: string;
  /** Serve what the data directory holds, tasks frozen by hand included, without connecting to Temporal. */
  publishedOnly?: boolean;
  /** The request log's file, rotated by size; stdout without it. */
  logFile?: string;
}

// One JSON line per request, written in batches (serve/log-lines.ts) to stdout or to --log-file, which rotates by size;
// closed when the server stops.
let requestLog: LogLines = createLogLines((text) => process.stdout.write(text));
const printRecord: ServeLog = (record) => requestLog.log(record);

/** The webhook secret, or null when the receiver is not wanted. Set but blank is a mistake, not a choice. */
function webhookSecretOf(env: NodeJS.ProcessEnv): string | null {
  const secret = env.ABP_WEBHOOK_SECRET;
  if (secret === undefined) return null;
  if (secret.trim() === '') {
    throw new ServeError(
      'invalid-setting',
      'ABP_WEBHOOK_SECRET is set but blank: set it to the GitHub webhook\'s secret, e.g. ABP_WEBHOOK_SECRET="$(cat webhook-secret.txt)", or unset it to serve the read-only API without the webhook route',
    );
  }
  return secret;
}

/** Serves until SIGINT or SIGTERM, then closes the server. */
async function serveUntilStopped(server: RunningServer): Promise<void> {
  await new Promise<void>((stop) => {
    process.once('SIGTERM', stop);
    process.once('SIGINT', stop);
  });
  await server.close();
  requestLog.close();
}

export async function serveCommand(options: ServeCommandOptions): Promise<void> {
  if (options.logFile !== undefined)
    requestLog = createLogLines(rotatingWriter({ path: options.logFile, ...REQUEST_LOG_ROTATION }));
  // Checked before connecting to anything.
  const webhookSecret = webhookSecretOf(process.env);
  const { temporal, home } = resolveStackConfig();
  if (options.publishedOnly === true) {
    if (webhookSecret !== null)
      throw new ServeError(
        'invalid-setting',
        'ABP_WEBHOOK_SECRET is set, but --published-only serves without Temporal, which the webhook route signals: unset it, or drop --published-only',
      );
    // Published files only: tasks frozen by hand are read from their records, so nothing here needs the worker.
    const server = await startServer({ port: options.port, host: options.host, api: { home }, log: printRecord });
    console.log(
      `abp serve: read-only API at ${server.url}${API_PREFIX} serving ${home}, tasks frozen by hand only (--published-only: the pipeline's tasks are not served); no webhook route`,
    );
    return serveUntilStopped(server);
  }
  // The pipeline's tasks through the read path (the database, or the worker that holds the embedded one), never a
  // workflow; Temporal only for the webhook route, which signals the task workflows.
  const reads = await openTaskReads({ home });
  let connection: Connection | undefined;
  try {
    if (webhookSecret !== null)
      connection = await Connection.connect({ address: temporal.address }).catch((error: unknown) => {
        throw new ServeError(
          'unreachable',
          `Temporal at ${temporal.address} did not answer, and the webhook route (ABP_WEBHOOK_SECRET is set) signals task workflows through it: start the stack with \`abp dev up\`, set TEMPORAL_ADDRESS to a running cluster, or unset ABP_WEBHOOK_SECRET to serve the read-only API alone`,
          { cause: error },
        );
      });
    const server = await startServer({
      port: options.port,
      host: options.host,
      api: { home, tasks: createTaskSource(reads) },
      ...(webhookSecret === null || connection === undefined
        ? {}
        : {
            webhookSecret,
            signaller: createTemporalSignaller(new Client({ connection, namespace: temporal.namespace })),
          }),
      log: printRecord,
    });
    const source =
      reads.via === 'database' ? 'from the database' : `through the worker that holds the database in ${home}`;
    const api = `read-only API at ${server.url}${API_PREFIX} serving ${home}, tasks frozen by hand and the pipeline's ${source}`;
    // "webhooks at <url>" ends the line: scripts read the receiver's URL from it.
    console.log(
      webhookSecret === null
        ? `abp serve: ${api}; no webhook route (ABP_WEBHOOK_SECRET is not set)`
        : `abp serve: ${api}; signalling tasks through Temporal ${temporal.address} (namespace ${temporal.namespace}) from webhooks at ${server.url}${WEBHOOK_PATH}`,
    );
    await serveUntilStopped(server);
  } finally {
    await connection?.close();
    await reads.close();
  }
}
