// Signing a webhook body as GitHub does: HMAC of the exact body bytes with the hook's secret, hex,
// prefixed by the algorithm. GitHub sends the SHA-256 header and, for old receivers, the SHA-1 one.
import { createHmac } from 'node:crypto';

export interface WebhookSignatures {
  /** `X-Hub-Signature-256`: `sha256=<hex>`. */
  sha256: string;
  /** `X-Hub-Signature`: `sha1=<hex>`, kept by GitHub for backward compatibility. */
  sha1: string;
}

export function signWebhookBody(secret: string, body: Buffer | string): WebhookSignatures {
  return {
    sha256: `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`,
    sha1: `sha1=${createHmac('sha1', secret).update(body).digest('hex')}`,
  };
}
