// The webhook dispatcher: turns world events into signed GitHub deliveries to one target URL, sends
// them one at a time in the order the events happened, retries failures per policy, drops a seeded
// share on purpose (fault injection) and records every attempt in the delivery log.
import { setTimeout as delay } from 'node:timers/promises';
import type { WorldEvent, WorldReader, WorldWriter } from '../world/model.js';
import { hash3, unit } from '../world/random.js';
import { defaultHookId, deliveryGuid, hookshotBuild, streams } from './delivery-id.js';
import { DeliveryLog } from './delivery-log.js';
import type { AttemptResult, DeliveryAttempt } from './delivery-log.js';
import { WebhookError } from './errors.js';
import { WebhookPayloadBuilder, webhookEventNames } from './payloads.js';
import type { WebhookEventName, WebhookMessage } from './payloads.js';
import { defaultRetryPolicy, retryDelay, validateRetryPolicy } from './retry.js';
import type { RetryPolicy } from './retry.js';
import { signWebhookBody } from './signing.js';
import { postWebhook } from './transport.js';
import type { AttemptOutcome, FetchLike } from './transport.js';

/** GitHub records a delivery as failed when the receiver takes longer than this. */
export const githubDeliveryTimeoutMs = 10_000;

export interface WebhookDispatcherOptions {
  world: WorldReader;
  /** The simulator's API base URL (e.g. `http://127.0.0.1:40123`): payload urls point there. */
  apiBaseUrl: string;
  /** Where deliveries are POSTed. */
  url: string;
  /** The hook's secret; without one GitHub sends no signature headers, and neither does this. */
  secret?: string;
  /** Events the hook subscribes to; all four by default. */
  events?: readonly WebhookEventName[];
  /** Seed of delivery ids, jitter and drops; the world's seed by default. */
  seed?: number;
  hookId?: number;
  /** Per attempt; GitHub's 10 s by default. */
  timeoutMs?: number;
  retry?: Partial<RetryPolicy>;
  /** Share (0..1) of deliveries dropped on purpose: logged as dropped, never sent. */
  dropRate?: number;
  /** Append every log record to this JSONL file. */
  logPath?: string;
  /** Clock for log timestamps. */
  now?: () => number;
  /** Waits between retries; tests pass one that returns at once. */
  sleep?: (ms: number) => Promise<void>;
  fetch?: FetchLike;
}

export type DeliveryStatus = 'queued' | 'delivered' | 'failed' | 'dropped';

export interface DeliverySummary {
  deliveryId: string;
  sequence: number;
  event: WebhookEventName;
  action: string;
  repository: string;
  status: DeliveryStatus;
  /** Redeliveries made so far. */
  redeliveries: number;
  /** The request as sent (or as it would have been, for a dropped delivery). */
  headers: Readonly<Record<string, string>>;
  body: string;
}

interface Delivery {
  id: string;
  sequence: number;
  message: WebhookMessage;
  headers: Record<string, string>;
  body: Buffer;
  dropped: boolean;
  status: DeliveryStatus;
  redeliveries: number;
}

interface Job {
  delivery: Delivery;
  round: number;
  settle: (status: DeliveryStatus) => void;
}

function resultOf(outcome: AttemptOutcome): AttemptResult {
  return outcome.kind;
}

export class WebhookDispatcher {
  readonly log: DeliveryLog;
  readonly hookId: number;
  private readonly builder: WebhookPayloadBuilder;
  private readonly seed: number;
  private readonly url: string;
  private readonly secret: string | undefined;
  private readonly events: ReadonlySet<WebhookEventName>;
  private readonly timeoutMs: number;
  private readonly retry: RetryPolicy;
  private readonly dropRate: number;
  private readonly now: () => number;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly fetch: FetchLike;
  private readonly userAgent: string;

  private sequence = 0;
  private readonly byId = new Map<string, Delivery>();
  private readonly inOrder: Delivery[] = [];
  private readonly queue: Job[] = [];
  private pumping: Promise<void> | null = null;
  private readonly detachers = new Set<() => void>();
  private readonly listenerErrors: Error[] = [];
  private closed = false;

  constructor(options: WebhookDispatcherOptions) {
    const target = safeUrl(options.url);
    if (!target || (target.protocol !== 'http:' && target.protocol !== 'https:')) {
      throw new WebhookError(
        'invalid-config',
        `The webhook url must be an http(s) URL such as http://127.0.0.1:3000/webhooks/github, got ${JSON.stringify(options.url)}`,
      );
    }
    const dropRate = options.dropRate ?? 0;
    if (!(dropRate >= 0 && dropRate <= 1))
      throw new WebhookError(
        'invalid-config',
        `dropRate must lie in 0..1 (e.g. 0.1 drops one delivery in ten), got ${dropRate}`,
      );
    const timeoutMs = options.timeoutMs ?? githubDeliveryTimeoutMs;
    if (!(timeoutMs > 0))
      throw new WebhookError('invalid-config', `timeoutMs must be > 0, e.g. 10000 (GitHub's limit), got ${timeoutMs}`);
    const retry = { ...defaultRetryPolicy, ...options.retry };
    const retryProblem = validateRetryPolicy(retry);
    if (retryProblem)
      throw new WebhookError(
        'invalid-config',
        `${retryProblem} (e.g. retry: { attempts: 3, initialDelayMs: 1000, factor: 2 })`,
      );

    this.seed = options.seed ?? options.world.seed;
    this.url = target.href;
    this.secret = options.secret;
    this.events = new Set(options.events ?? webhookEventNames);
    this.timeoutMs = timeoutMs;
    this.retry = retry;
    this.dropRate = dropRate;
    this.now = options.now ?? Date.now;
    this.sleep = options.sleep ?? ((ms) => delay(ms));
    this.fetch = options.fetch ?? ((url, init) => fetch(url, init));
    this.hookId = options.hookId ?? defaultHookId(this.seed);
    this.userAgent = `GitHub-Hookshot/${hookshotBuild(this.seed)}`;
    this.builder = new WebhookPayloadBuilder(options.world, options.apiBaseUrl);
    this.log = new DeliveryLog(options.logPath);
  }

  /**
   * Builds the deliveries of one event now (from the world as it is now) and queues them behind
   * earlier ones. Returns the queued deliveries; events the hook does not subscribe to yield none.
   */
  dispatch(event: WorldEvent): DeliverySummary[] {
    if (this.closed) throw new WebhookError('closed', 'The webhook dispatcher is closed');
    const queued: DeliverySummary[] = [];
    for (const message of this.builder.build(event)) {
      // Every built event takes a sequence number, subscribed or not, so ids do not depend on the filter.
      const sequence = this.sequence++;
      if (!this.events.has(message.event)) continue;
      const delivery = this.prepare(message, sequence);
      this.byId.set(delivery.id, delivery);
      this.inOrder.push(delivery);
      void this.enqueue(delivery, 0);
      queued.push(summarize(delivery));
    }
    return queued;
  }

  /** Dispatches every event the writer records from now on; returns the function that stops it. */
  attach(source: Pick<WorldWriter, 'onEvent'>): () => void {
    const unsubscribe = source.onEvent((event) => {
      // A failure here must not fail the world change that fired the event; idle() reports it.
      try {
        this.dispatch(event);
      } catch (error) {
        this.listenerErrors.push(asError(error));
      }
    });
    const detach = (): void => {
      unsubscribe();
      this.detachers.delete(detach);
    };
    this.detachers.add(detach);
    return detach;
  }

  /**
   * Sends a delivery again with the same id, body and signature, as GitHub's redelivery does,
   * even one that was dropped. Resolves with the outcome of this redelivery.
   */
  redeliver(deliveryId: string): Promise<DeliveryStatus> {
    if (this.closed) return Promise.reject(new WebhookError('closed', 'The webhook dispatcher is closed'));
    const delivery = this.byId.get(deliveryId);
    if (!delivery)
      return Promise.reject(
        new WebhookError('unknown-delivery', `No delivery ${deliveryId} was made by hook ${this.hookId}`),
      );
    delivery.redeliveries += 1;
    delivery.status = 'queued';
    return this.enqueue(delivery, delivery.redeliveries);
  }

  /** Every delivery so far, in the order of their events. */
  deliveries(): DeliverySummary[] {
    return this.inOrder.map(summarize);
  }

  delivery(deliveryId: string): DeliverySummary | undefined {
    const delivery = this.byId.get(deliveryId);
    return delivery ? summarize(delivery) : undefined;
  }

  /** Resolves when the queue is empty and the log file is written; rejects with a listener or log failure. */
  async idle(): Promise<void> {
    while (this.pumping) await this.pumping;
    await this.log.flushed();
    const failure = this.listenerErrors.shift();
    if (failure !== undefined) throw failure;
  }

  /** Stops taking events, then waits for what is queued. */
  async close(): Promise<void> {
    for (const detach of [...this.detachers]) detach();
    this.closed = true;
    await this.idle();
  }

  private prepare(message: WebhookMessage, sequence: number): Delivery {
    const id = deliveryGuid(this.seed, sequence);
    const body = Buffer.from(JSON.stringify(message.payload), 'utf8');
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'user-agent': this.userAgent,
      'x-github-event': message.event,
      'x-github-delivery': id,
      'x-github-hook-id': String(this.hookId),
      'x-github-hook-installation-target-type': 'repository',
      'x-github-hook-installation-target-id': String(message.repoId),
    };
    if (this.secret !== undefined) {
      const signatures = signWebhookBody(this.secret, body);
      headers['x-hub-signature'] = signatures.sha1;
      headers['x-hub-signature-256'] = signatures.sha256;
    }
    // A pure function of (seed, sequence): the same seed drops the same deliveries whatever the timing.
    const dropped = unit(hash3(this.seed, streams.drop, sequence)) < this.dropRate;
    return { id, sequence, message, headers, body, dropped, status: 'queued', redeliveries: 0 };
  }

  private enqueue(delivery: Delivery, round: number): Promise<DeliveryStatus> {
    return new Promise((settle) => {
      this.queue.push({ delivery, round, settle });
      this.pumping ??= this.pump();
    });
  }

  /** One delivery at a time, so the receiver sees events in the order they happened. */
  private async pump(): Promise<void> {
    for (let job = this.queue.shift(); job; job = this.queue.shift()) {
      let status: DeliveryStatus;
      try {
        status = await this.run(job.delivery, job.round);
      } catch (error) {
        // Attempts report failures as data; anything thrown here is a bug, kept for idle() to report.
        this.listenerErrors.push(asError(error));
        status = 'failed';
      }
      job.delivery.status = status;
      job.settle(status);
    }
    // Cleared in the same turn as the empty check, so a later enqueue starts a new pump.
    this.pumping = null;
  }

  private record(
    delivery: Delivery,
    round: number,
    attempt: number,
    fields: Pick<DeliveryAttempt, 'at' | 'result' | 'statusCode' | 'error' | 'durationMs' | 'retryInMs'>,
  ): void {
    this.log.append({
      deliveryId: delivery.id,
      sequence: delivery.sequence,
      hookId: this.hookId,
      event: delivery.message.event,
      action: delivery.message.action,
      repository: delivery.message.repository,
      attempt,
      round,
      ...fields,
      dropped: fields.result === 'dropped',
    });
  }

  private async run(delivery: Delivery, round: number): Promise<DeliveryStatus> {
    if (delivery.dropped && round === 0) {
      this.record(delivery, round, 1, {
        at: this.timestamp(),
        result: 'dropped',
        statusCode: null,
        error: null,
        durationMs: 0,
        retryInMs: null,
      });
      return 'dropped';
    }
    for (let attempt = 1; ; attempt++) {
      const at = this.timestamp();
      const outcome = await postWebhook(this.fetch, this.url, delivery.headers, delivery.body, this.timeoutMs);
      const retryInMs =
        outcome.kind === 'delivered' ? null : retryDelay(this.retry, this.seed, delivery.sequence, round, attempt);
      this.record(delivery, round, attempt, {
        at,
        result: resultOf(outcome),
        statusCode: 'statusCode' in outcome ? outcome.statusCode : null,
        error:
          outcome.kind === 'connection-error'
            ? outcome.error
            : outcome.kind === 'timeout'
              ? `no response within ${this.timeoutMs} ms`
              : null,
        durationMs: outcome.durationMs,
        retryInMs,
      });
      if (outcome.kind === 'delivered') return 'delivered';
      if (retryInMs === null) return 'failed';
      await this.sleep(retryInMs);
    }
  }

  private timestamp(): string {
    return new Date(this.now()).toISOString();
  }
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

function safeUrl(text: string): URL | null {
  try {
    return new URL(text);
  } catch {
    return null;
  }
}

function summarize(delivery: Delivery): DeliverySummary {
  return {
    deliveryId: delivery.id,
    sequence: delivery.sequence,
    event: delivery.message.event,
    action: delivery.message.action,
    repository: delivery.message.repository,
    status: delivery.status,
    redeliveries: delivery.redeliveries,
    headers: { ...delivery.headers },
    body: delivery.body.toString('utf8'),
  };
}
