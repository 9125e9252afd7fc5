// Webhook payloads against GitHub's own schemas and the fields abp's tracking reads.
import { describe, expect, it } from 'vitest';
import { WebhookError } from '../../src/webhooks/errors.js';
import { WebhookPayloadBuilder } from '../../src/webhooks/payloads.js';
import type { WebhookMessage } from '../../src/webhooks/payloads.js';
import { LiveTestWorld } from './live-world.js';
import { loadWebhookSchemas } from './webhook-schemas.js';

const baseUrl = 'http://127.0.0.1:40123';
const schemas = loadWebhookSchemas();

function scenarioMessages(): WebhookMessage[] {
  const world = new LiveTestWorld();
  const builder = new WebhookPayloadBuilder(world, baseUrl);
  const messages: WebhookMessage[] = [];
  world.onEvent((event) => messages.push(...builder.build(event)));
  world.playScenario();
  return messages;
}

type Json = Record<string, unknown>;
const field = (value: unknown, ...path: string[]): unknown =>
  path.reduce<unknown>((node, key) => (node as Json | undefined)?.[key], value);

describe('webhook payloads', () => {
  const messages = scenarioMessages();

  it('builds the scenario’s deliveries in event order', () => {
    expect(messages.map((message) => `${message.event}.${message.action}`)).toEqual([
      'pull_request.opened',
      'check_run.completed',
      'check_suite.completed',
      'pull_request.synchronize',
      'check_run.completed',
      'check_suite.completed',
      'pull_request.closed',
      'issues.closed',
      'pull_request.opened',
      'pull_request.closed',
      'issues.closed',
      'issues.reopened',
    ]);
  });

  it('conforms to GitHub’s webhook schemas', () => {
    for (const message of messages) {
      expect(
        schemas.check(message.event, message.action, message.payload),
        `${message.event}.${message.action}`,
      ).toEqual([]);
    }
    // The check can fail: a pull request without its head, a check run without a conclusion.
    const closed = messages.find((message) => message.action === 'closed')?.payload ?? {};
    const headless = { ...(closed['pull_request'] as Json) };
    delete headless['head'];
    expect(schemas.check('pull_request', 'closed', { ...closed, pull_request: headless }).join()).toContain('head');
    const run = messages.find((message) => message.event === 'check_run')?.payload ?? {};
    const undecided = { ...(run['check_run'] as Json) };
    delete undecided['conclusion'];
    expect(schemas.check('check_run', 'completed', { ...run, check_run: undecided }).join()).toContain('conclusion');
  });

  it('marks a merge with merged, merged_at, merge_commit_sha and the merger as sender', () => {
    const [merged, closed] = messages.filter(
      (message) => message.event === 'pull_request' && message.action === 'closed',
    );
    expect(field(merged?.payload, 'pull_request', 'merged')).toBe(true);
    expect(field(merged?.payload, 'pull_request', 'merged_at')).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(field(merged?.payload, 'pull_request', 'merge_commit_sha')).toMatch(/^[0-9a-f]{40}$/);
    expect(field(merged?.payload, 'pull_request', 'merged_by', 'login')).toBe('maria');
    expect(field(merged?.payload, 'sender', 'login')).toBe('maria');
    expect(field(merged?.payload, 'pull_request', 'base', 'ref')).toBe('main');
    expect(field(merged?.payload, 'pull_request', 'user', 'login')).toBe('solver');
    expect(field(merged?.payload, 'pull_request', 'html_url')).toBe(`${baseUrl}/acme/widgets/pull/3`);
    expect(field(merged?.payload, 'repository', 'full_name')).toBe('acme/widgets');
    expect(field(merged?.payload, 'repository', 'default_branch')).toBe('main');
    expect(field(merged?.payload, 'number')).toBe(3);
    expect(merged?.payload).not.toHaveProperty('installation');
    expect(field(closed?.payload, 'pull_request', 'merged')).toBe(false);
    expect(field(closed?.payload, 'pull_request', 'merged_at')).toBeNull();
  });

  it('gives synchronize the previous and the new head', () => {
    const opened = messages.find((message) => message.action === 'opened');
    const sync = messages.find((message) => message.action === 'synchronize');
    expect(field(sync?.payload, 'before')).toBe(field(opened?.payload, 'pull_request', 'head', 'sha'));
    expect(field(sync?.payload, 'after')).toBe(field(sync?.payload, 'pull_request', 'head', 'sha'));
    expect(field(sync?.payload, 'before')).not.toBe(field(sync?.payload, 'after'));
  });

  it('shows each payload as the world was at its event', () => {
    // The first check ran on the head before the push; the merge came later.
    const [firstRun, secondRun] = messages.filter((message) => message.event === 'check_run');
    const opened = messages.find((message) => message.action === 'opened');
    expect(field(firstRun?.payload, 'check_run', 'head_sha')).toBe(
      field(opened?.payload, 'pull_request', 'head', 'sha'),
    );
    expect(field(firstRun?.payload, 'check_run', 'conclusion')).toBe('failure');
    expect(field(secondRun?.payload, 'check_run', 'conclusion')).toBe('success');
    expect(field(opened?.payload, 'pull_request', 'state')).toBe('open');
    expect(field(opened?.payload, 'pull_request', 'merged')).toBe(false);
  });

  it('names the pull request of a check run and completes it', () => {
    const run = messages.find((message) => message.event === 'check_run');
    expect(field(run?.payload, 'check_run', 'status')).toBe('completed');
    const pulls = field(run?.payload, 'check_run', 'pull_requests') as Json[];
    expect(pulls.map((pull) => pull['number'])).toEqual([3]);
    expect(field(run?.payload, 'sender', 'type')).toBe('Bot');
    const suite = messages.find((message) => message.event === 'check_suite');
    expect(field(suite?.payload, 'check_suite', 'head_sha')).toBe(field(run?.payload, 'check_run', 'head_sha'));
    expect(field(suite?.payload, 'check_suite', 'id')).toBe(field(run?.payload, 'check_run', 'check_suite', 'id'));
  });

  it('carries the issue state reason', () => {
    const issues = messages.filter((message) => message.event === 'issues');
    expect(
      issues.map((message) => [
        message.action,
        field(message.payload, 'issue', 'state'),
        field(message.payload, 'issue', 'state_reason'),
      ]),
    ).toEqual([
      ['closed', 'closed', 'completed'],
      ['closed', 'closed', 'not_planned'],
      ['reopened', 'open', 'reopened'],
    ]);
  });

  it('sends no completed check for a pending conclusion', () => {
    const world = new LiveTestWorld();
    const builder = new WebhookPayloadBuilder(world, baseUrl);
    const pull = world.openPull(world.openIssue('x').number);
    expect(
      builder.build({
        type: 'check_run',
        action: 'completed',
        repoId: 7,
        number: pull.number,
        headOid: pull.headRefOid,
        conclusion: 'PENDING',
        at: pull.createdAt,
      }),
    ).toEqual([]);
  });

  it('rejects an event naming a record the world lacks', () => {
    const builder = new WebhookPayloadBuilder(new LiveTestWorld(), baseUrl);
    const attempt = (): unknown =>
      builder.build({ type: 'pull_request', action: 'opened', repoId: 7, number: 99, at: '2025-06-01T00:00:00Z' });
    expect(attempt).toThrow(WebhookError);
    try {
      attempt();
    } catch (error) {
      expect((error as WebhookError).code).toBe('unknown-record');
    }
  });
});
