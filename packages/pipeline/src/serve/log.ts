// What `abp serve` reports about the requests it answers: records as data, so the command prints them and tests read
// them. No record carries the secret, a signature or a request body. Reads of the API are one record each (served or
// refused); a webhook delivery is one record saying what it did.
import type { SignalResult, TaskSignalName } from './signaller.js';

export interface DeliveryIdentity {
  /** X-GitHub-Event, when sent. */
  event: string | null;
  /** X-GitHub-Delivery, when sent. */
  deliveryId: string | null;
  remoteAddress: string | null;
}

export interface SignalOutcome {
  taskId: string;
  signal: TaskSignalName;
  result: SignalResult;
}

export type ServeLogRecord =
  | { kind: 'request-served'; method: string; path: string; status: number; remoteAddress: string | null }
  | { kind: 'request-refused'; method: string; path: string; status: number; remoteAddress: string | null }
  | { kind: 'request-failed'; method: string; path: string; error: string }
  | (DeliveryIdentity &
      (
        | { kind: 'delivery-rejected'; reason: 'unsigned' | 'bad-signature' | 'not-json' | 'malformed'; status: number }
        | { kind: 'delivery-ignored'; reason: 'duplicate' | 'event' | 'action' | 'no-task'; action: string | null }
        | { kind: 'delivery-ping' }
        | { kind: 'delivery-signalled'; action: string; signals: SignalOutcome[] }
        | { kind: 'delivery-failed'; action: string; error: string }
      ));

export type ServeLog = (record: ServeLogRecord) => void;
