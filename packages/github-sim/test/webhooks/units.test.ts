// The dispatcher's pure parts: delivery ids, signatures (checked by @octokit/webhooks), backoff.
import { Webhooks } from '@octokit/webhooks';
import { describe, expect, it } from 'vitest';
import { defaultHookId, deliveryGuid, hookshotBuild } from '../../src/webhooks/delivery-id.js';
import { defaultRetryPolicy, retryDelay } from '../../src/webhooks/retry.js';
import { signWebhookBody } from '../../src/webhooks/signing.js';

describe('delivery ids', () => {
  it('are UUID-shaped, a pure function of seed and sequence, and distinct', () => {
    const ids = Array.from({ length: 2_000 }, (_, sequence) => deliveryGuid(42, sequence));
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(new Set(ids).size).toBe(ids.length);
    expect(deliveryGuid(42, 17)).toBe(ids[17]);
    expect(deliveryGuid(43, 17)).not.toBe(ids[17]);
    expect(defaultHookId(42)).toBe(defaultHookId(42));
    expect(String(defaultHookId(42))).toMatch(/^\d{9}$/);
    expect(hookshotBuild(42)).toMatch(/^[0-9a-f]{7}$/);
  });
});

describe('signatures', () => {
  const secret = 'It’s a Secret to Everybody';
  const body = JSON.stringify({ action: 'closed', number: 3, title: 'naïve café ✓' });

  it('verify with @octokit/webhooks and match its own signing', async () => {
    const webhooks = new Webhooks({ secret });
    const signatures = signWebhookBody(secret, Buffer.from(body, 'utf8'));
    await expect(webhooks.verify(body, signatures.sha256)).resolves.toBe(true);
    await expect(webhooks.sign(body)).resolves.toBe(signatures.sha256);
    expect(signatures.sha1).toMatch(/^sha1=[0-9a-f]{40}$/);
  });

  it('fail for another secret or a changed body', async () => {
    const signatures = signWebhookBody(secret, body);
    await expect(new Webhooks({ secret: 'other' }).verify(body, signatures.sha256)).resolves.toBe(false);
    await expect(new Webhooks({ secret }).verify(`${body} `, signatures.sha256)).resolves.toBe(false);
  });
});

describe('retry delays', () => {
  const policy = { attempts: 6, initialDelayMs: 1_000, factor: 3, maxDelayMs: 20_000, jitter: 0.25 };

  it('grow exponentially within the jitter band, up to the cap, and stop after the last attempt', () => {
    const delays = [1, 2, 3, 4, 5].map((attempt) => retryDelay(policy, 42, 0, 0, attempt));
    const bases = [1_000, 3_000, 9_000, 20_000, 20_000];
    delays.forEach((value, index) => {
      const base = bases[index] ?? 0;
      expect(value).toBeGreaterThanOrEqual(base * 0.75);
      expect(value).toBeLessThanOrEqual(base);
    });
    expect(retryDelay(policy, 42, 0, 0, 6)).toBeNull();
    expect(retryDelay({ ...defaultRetryPolicy, attempts: 1 }, 42, 0, 0, 1)).toBeNull();
  });

  it('are the same for the same seed and differ between deliveries', () => {
    expect(retryDelay(policy, 42, 5, 0, 2)).toBe(retryDelay(policy, 42, 5, 0, 2));
    const spread = new Set(Array.from({ length: 20 }, (_, sequence) => retryDelay(policy, 42, sequence, 0, 2)));
    expect(spread.size).toBeGreaterThan(10);
    expect(retryDelay({ ...policy, jitter: 0 }, 42, 5, 0, 2)).toBe(3_000);
  });
});
