// The GitHub webhook receiver of `abp serve`: POST /webhooks/github, each delivery's X-Hub-Signature-256 verified with
// @octokit/webhooks against the configured secret, each delivery acted on once (GitHub redelivers an event under the
// same X-GitHub-Delivery), pull request and issue events turned into task signals before GitHub is answered.
import { Webhooks } from '@octokit/webhooks';
import type { IncomingHttpHeaders } from 'node:http';
import type { DeliveryIdentity, ServeLog, SignalOutcome } from './log.js';
import { RecentIds } from './recent-ids.js';
import type { Route, ServeReply } from './router.js';
import type { TaskSignaller } from './signaller.js';
import { planDelivery } from './task-signals.js';

export const WEBHOOK_PATH = '/webhooks/github';
/** GitHub does not send payloads larger than 25 MB. */
export const maxWebhookBytes = 25 * 1024 * 1024;
/** Deliveries read at once: at most this many bodies of up to 25 MB are held in memory together. */
export const maxConcurrentDeliveries = 8;
const UNSIGNED =
  'X-Hub-Signature-256 is missing: give the GitHub webhook the secret abp serve has in ABP_WEBHOOK_SECRET';
// Redeliveries come minutes to days after the original; ten thousand ids cover days of a busy hook.
const rememberedDeliveries = 10_000;

export interface WebhookRouteOptions {
  secret: string;
  signaller: TaskSignaller;
  log: ServeLog;
}

function header(headers: IncomingHttpHeaders, name: string): string | null {
  const value = headers[name];
  return typeof value === 'string' && value !== '' ? value : null;
}

function isJson(contentType: string | undefined): boolean {
  return contentType?.split(';')[0]?.trim().toLowerCase() === 'application/json';
}

export function webhookRoute(options: WebhookRouteOptions): Route {
  const webhooks = new Webhooks({ secret: options.secret });
  const handled = new RecentIds(rememberedDeliveries);
  const { log, signaller } = options;

  return {
    method: 'POST',
    path: WEBHOOK_PATH,
    maxBodyBytes: maxWebhookBytes,
    maxConcurrent: maxConcurrentDeliveries,
    // An unsigned delivery is refused before its body is read: an anonymous client cannot make the server hold 25 MB.
    admit(request) {
      if (header(request.headers, 'x-hub-signature-256') !== null) return null;
      log({
        kind: 'delivery-rejected',
        reason: 'unsigned',
        status: 401,
        event: header(request.headers, 'x-github-event'),
        deliveryId: header(request.headers, 'x-github-delivery'),
        remoteAddress: request.remoteAddress,
      });
      return { status: 401, body: { error: UNSIGNED } };
    },
    async handle(request): Promise<ServeReply> {
      const delivery: DeliveryIdentity = {
        event: header(request.headers, 'x-github-event'),
        deliveryId: header(request.headers, 'x-github-delivery'),
        remoteAddress: request.remoteAddress,
      };
      const reject = (
        status: number,
        reason: 'unsigned' | 'bad-signature' | 'not-json' | 'malformed',
        error: string,
      ): ServeReply => {
        log({ kind: 'delivery-rejected', reason, status, ...delivery });
        return { status, body: { error } };
      };

      const signature = header(request.headers, 'x-hub-signature-256');
      if (signature === null) return reject(401, 'unsigned', UNSIGNED);
      const text = request.body.toString('utf8');
      // GitHub never sends an empty body, and @octokit/webhooks refuses to verify one.
      if (text === '' || !(await webhooks.verify(text, signature))) {
        return reject(
          401,
          'bad-signature',
          'X-Hub-Signature-256 does not match the body: the GitHub webhook secret differs from ABP_WEBHOOK_SECRET',
        );
      }
      if (!isJson(request.headers['content-type']))
        return reject(
          415,
          'not-json',
          'the body is not application/json: set the GitHub webhook content type to application/json',
        );
      const { event, deliveryId } = delivery;
      if (event === null || deliveryId === null)
        return reject(400, 'malformed', 'X-GitHub-Event and X-GitHub-Delivery are required, as GitHub sends them');
      if (handled.has(deliveryId)) {
        log({ kind: 'delivery-ignored', reason: 'duplicate', action: null, ...delivery });
        return { status: 202, body: { deliveryId, ignored: 'duplicate' } };
      }
      let payload: unknown;
      try {
        payload = JSON.parse(text);
      } catch {
        return reject(400, 'malformed', 'the body is not valid JSON');
      }

      if (event === 'ping') {
        handled.add(deliveryId);
        log({ kind: 'delivery-ping', ...delivery });
        return { status: 200, body: { deliveryId, pong: true } };
      }
      const plan = planDelivery(event, deliveryId, payload);
      switch (plan.$case) {
        case 'invalid':
          return reject(400, 'malformed', plan.problem);
        case 'ignore':
          handled.add(deliveryId);
          log({ kind: 'delivery-ignored', reason: plan.reason, action: plan.action, ...delivery });
          return { status: 202, body: { deliveryId, ignored: plan.reason } };
        case 'signal': {
          let signals: SignalOutcome[];
          try {
            signals = await Promise.all(
              plan.signals.map(async ({ taskId, name, payload: sent }) => ({
                taskId,
                signal: name,
                result: await signaller.signal(taskId, name, sent),
              })),
            );
          } catch (error) {
            // Not remembered as handled: a redelivery tries again. Tasks signalled before the failure are signalled
            // twice then, which is harmless: a signal only tells the task to look at its pull request or issue again.
            log({
              kind: 'delivery-failed',
              action: plan.action,
              error: error instanceof Error ? error.message : String(error),
              ...delivery,
            });
            return {
              status: 503,
              body: {
                deliveryId,
                error: 'could not signal the task workflows; redeliver this delivery once Temporal is reachable',
              },
            };
          }
          handled.add(deliveryId);
          log({ kind: 'delivery-signalled', action: plan.action, signals, ...delivery });
          return { status: 200, body: { deliveryId, signals } };
        }
      }
    },
  };
}
