// `abp serve`: receive GitHub webhooks in the foreground and signal the task workflows they concern, until SIGINT or
// SIGTERM. Each request is logged as one JSON line on stdout.
import { Client, Connection } from '@temporalio/client';
import { ServeError } from '../serve/errors.js';
import type { ServeLogRecord } from '../serve/log.js';
import { startServer } from '../serve/server.js';
import { createTemporalSignaller } from '../serve/signaller.js';
import { WEBHOOK_PATH } from '../serve/webhooks.js';
import { resolveStackConfig } from '../stack/config.js';

export interface ServeCommandOptions {
  port: number;
  host: string;
}

function printRecord(record: ServeLogRecord): void {
  console.log(JSON.stringify({ at: new Date().toISOString(), ...record }));
}

export async function serveCommand(options: ServeCommandOptions): Promise<void> {
  // Checked before connecting to anything: without the secret no delivery could be accepted.
  const webhookSecret = process.env.ABP_WEBHOOK_SECRET ?? '';
  if (webhookSecret.trim() === '') {
    throw new ServeError(
      'invalid-setting',
      'ABP_WEBHOOK_SECRET is not set: abp serve accepts only deliveries signed with the GitHub webhook\'s secret; set it to that secret, e.g. ABP_WEBHOOK_SECRET="$(cat webhook-secret.txt)"',
    );
  }
  const { temporal } = resolveStackConfig();
  // One connection for the life of the server (stack/client.ts holds one per command): every delivery signals through it.
  const connection = await Connection.connect({ address: temporal.address }).catch((error: unknown) => {
    throw new ServeError('unreachable', `Temporal at ${temporal.address} did not answer: start the stack with \`abp dev up\`, or set TEMPORAL_ADDRESS to a running cluster`, { cause: error });
  });
  try {
    const client = new Client({ connection, namespace: temporal.namespace });
    const server = await startServer({ port: options.port, host: options.host, webhookSecret, signaller: createTemporalSignaller(client), log: printRecord });
    console.log(`abp serve: signalling tasks on Temporal ${temporal.address} (namespace ${temporal.namespace}); webhooks at ${server.url}${WEBHOOK_PATH}`);
    await new Promise<void>((stop) => {
      process.once('SIGTERM', stop);
      process.once('SIGINT', stop);
    });
    await server.close();
  } finally {
    await connection.close();
  }
}
