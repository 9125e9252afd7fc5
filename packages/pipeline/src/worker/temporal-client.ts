// A Temporal client for one command against the configured server, closed when the command is done.
import { Client, Connection } from '@temporalio/client';
import type { StackConfig } from './config.js';

export async function withTemporalClient<T>(config: StackConfig, body: (client: Client) => Promise<T>): Promise<T> {
  const connection = await Connection.connect({ address: config.temporal.address });
  try {
    return await body(new Client({ connection, namespace: config.temporal.namespace }));
  } finally {
    await connection.close();
  }
}
