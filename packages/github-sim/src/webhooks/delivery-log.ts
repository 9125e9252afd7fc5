// The delivery log: one record per attempt (and one per deliberately dropped delivery), in the
// order they happened, queryable in memory and appended as JSON lines to a file when a path is
// given. Records hold no headers and no secret: they are safe to share.
import { appendFile, mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { WebhookError } from './errors.js';

export type AttemptResult = 'delivered' | 'http-error' | 'timeout' | 'connection-error' | 'dropped';

export interface DeliveryAttempt {
  /** X-GitHub-Delivery: the same for every attempt and redelivery of one event. */
  deliveryId: string;
  /** Position of the event among those the dispatcher built. */
  sequence: number;
  hookId: number;
  event: string;
  action: string;
  /** `owner/name`. */
  repository: string;
  /** 1-based within its round; a dropped delivery is recorded as attempt 1. */
  attempt: number;
  /** 0 for the original delivery, n for the n-th redelivery. */
  round: number;
  /** When the attempt started (ISO 8601, from the dispatcher's clock). */
  at: string;
  result: AttemptResult;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  dropped: boolean;
  /** The wait before the next try, or null when there is none. */
  retryInMs: number | null;
}

export interface AttemptFilter {
  deliveryId?: string;
  event?: string;
  result?: AttemptResult;
}

export class DeliveryLog {
  private readonly records: DeliveryAttempt[] = [];
  private writes: Promise<void> = Promise.resolve();
  private writeError: WebhookError | null = null;
  private directoryReady = false;

  /** With `path`, every record is also appended to that JSONL file, in order. */
  constructor(readonly path?: string) {}

  append(record: DeliveryAttempt): void {
    this.records.push(record);
    const path = this.path;
    if (path === undefined) return;
    const line = `${JSON.stringify(record)}\n`;
    this.writes = this.writes.then(async () => {
      if (this.writeError) return;
      try {
        if (!this.directoryReady) {
          await mkdir(dirname(path), { recursive: true });
          this.directoryReady = true;
        }
        await appendFile(path, line, 'utf8');
      } catch (error) {
        this.writeError = new WebhookError('log-write', `Could not append to the delivery log ${path}`, {
          cause: error,
        });
      }
    });
  }

  /** Records matching every given field, oldest first. */
  attempts(filter: AttemptFilter = {}): DeliveryAttempt[] {
    return this.records.filter(
      (record) =>
        (filter.deliveryId === undefined || record.deliveryId === filter.deliveryId) &&
        (filter.event === undefined || record.event === filter.event) &&
        (filter.result === undefined || record.result === filter.result),
    );
  }

  /** Resolves once every record so far is in the file; rejects if a write failed. */
  async flushed(): Promise<void> {
    await this.writes;
    if (this.writeError) throw this.writeError;
  }
}
