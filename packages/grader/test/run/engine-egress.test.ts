// An adapter's egress allow-list as the schema reads it, the trial's record of what the proxy saw, and the folders of
// killed graders' proxies swept away.
import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { adaptersSchema } from '@abp/protocol/schemas/abp-adapters';
import { egressRecord, sweepDeadEgressFolders } from '../../src/run/engine-egress.js';

const file = (egress: unknown) => ({
  schema: 'abp-adapters/v1',
  executionPolicy: 'sandboxed',
  adapters: [
    {
      engine: 'e',
      command: ['e'],
      egress,
      metadata: {},
      preflight: { prompt: 'p', sentinel: 'OK' },
    },
  ],
});

describe("an adapter's egress allow-list", () => {
  it('takes host names and domains, port 443 unless others are listed, and is empty unless given', () => {
    const parsed = adaptersSchema.parse(
      file([{ host: 'api.anthropic.com' }, { host: '*.openai.com', ports: [443, 80] }]),
    );
    expect(parsed.adapters[0]?.egress).toEqual([
      { host: 'api.anthropic.com', ports: [443] },
      { host: '*.openai.com', ports: [443, 80] },
    ]);
    const { egress, ...without } = file([]).adapters[0] as Record<string, unknown>;
    expect(egress).toEqual([]);
    expect(adaptersSchema.parse({ ...file([]), adapters: [without] }).adapters[0]?.egress).toEqual([]);
  });

  it.each([
    [{ host: 'API.Anthropic.com' }, 'lower-case host name'],
    [{ host: 'https://api.anthropic.com' }, 'lower-case host name'],
    [{ host: 'api.anthropic.com:443' }, 'lower-case host name'],
    [{ host: '*' }, 'lower-case host name'],
    [{ host: 'a.example', ports: [] }, 'at least one port'],
    [{ host: 'a.example', ports: [70000] }, 'TCP port'],
    [{ host: 'a.example', extra: 1 }, 'extra'],
  ])('refuses %j', (rule, message) => {
    const parsed = adaptersSchema.safeParse(file([rule]));
    expect(parsed.success).toBe(false);
    expect(JSON.stringify(parsed.error?.issues)).toContain(message);
  });
});

describe("the trial's egress record", () => {
  it('lists the allow-list as host:port and groups the attempts by what happened, in a stable order', () => {
    const refused = { allowed: false, error: 'not in the allow-list' };
    const record = egressRecord(
      [
        { host: 'api.anthropic.com', ports: [443] },
        { host: '*.example.org', ports: [80, 443] },
      ],
      [
        { host: 'api.anthropic.com', port: 443, allowed: true, error: null },
        { host: 'github.com', port: 443, ...refused },
        { host: 'api.anthropic.com', port: 443, allowed: true, error: null },
        { host: 'api.anthropic.com', port: 443, allowed: true, error: 'ETIMEDOUT' },
        { host: 'api.anthropic.com', port: 80, ...refused },
        { host: 'github.com', port: 443, ...refused },
      ],
    );
    expect(record).toEqual({
      allow: ['api.anthropic.com:443', '*.example.org:80', '*.example.org:443'],
      attempts: [
        { host: 'api.anthropic.com', port: 80, ...refused, count: 1 },
        { host: 'api.anthropic.com', port: 443, allowed: true, error: null, count: 2 },
        { host: 'api.anthropic.com', port: 443, allowed: true, error: 'ETIMEDOUT', count: 1 },
        { host: 'github.com', port: 443, ...refused, count: 2 },
      ],
    });
  });
});

describe("a killed grader's egress folders", () => {
  it("are removed by the next grader when their process is gone; a live one's and others stay", async () => {
    const root = await mkdtemp(join(tmpdir(), 'abp-egress-sweep-'));
    try {
      // The largest pid Linux hands out is 4194304 (pid_max's ceiling): no process has one above it.
      const names = [
        `abp-engine-egress-${process.pid}-aaaaaa`,
        'abp-engine-egress-4194305-bbbbbb',
        'abp-engine-egress-cccccc',
        'other',
      ];
      for (const name of names) await mkdir(join(root, name));
      await sweepDeadEgressFolders(root);
      expect((await readdir(root)).sort()).toEqual([
        `abp-engine-egress-${process.pid}-aaaaaa`,
        'abp-engine-egress-cccccc',
        'other',
      ]);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});
