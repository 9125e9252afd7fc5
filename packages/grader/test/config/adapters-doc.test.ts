// The adapter file docs/adapters.md walks through is one the schema accepts: the page cannot drift from what runs.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { adaptersSchema } from '@abp/protocol/schemas/abp-adapters';
import { packageRoot } from '../../src/package-root.js';

describe('docs/adapters.md', () => {
  it("holds an adapter file the schema accepts, with Claude Code's egress and partial messages", () => {
    const page = readFileSync(join(packageRoot, '..', '..', 'docs', 'adapters.md'), 'utf8');
    const example = /```json\n(\{\n {2}"schema": "abp-adapters\/v1"[\s\S]*?)\n```/.exec(page)?.[1];
    expect(example).toBeDefined();
    const parsed = adaptersSchema.parse(JSON.parse(example ?? ''));
    expect(parsed.executionPolicy).toBe('sandboxed');
    expect(parsed.adapters[0]?.egress).toEqual([{ host: 'api.anthropic.com', ports: [443] }]);
    expect(parsed.adapters[0]?.command).toContain('--include-partial-messages');
  });

  it('holds a Codex adapter the schema accepts, reading its trace through the rollout translator', () => {
    const page = readFileSync(join(packageRoot, '..', '..', 'docs', 'adapters.md'), 'utf8');
    const example = /```json\n(\{\n {2}"engine": "codex"[\s\S]*?)\n```/.exec(page)?.[1];
    expect(example).toBeDefined();
    const file = { schema: 'abp-adapters/v1', executionPolicy: 'sandboxed', adapters: [JSON.parse(example ?? '')] };
    const [codex] = adaptersSchema.parse(file).adapters;
    expect(codex?.trace).toEqual({ kind: 'sidecar', translator: 'codex-rollout', from: 'traceFile' });
    expect(codex?.command.slice(0, 3)).toEqual(['/bin/sh', '/opt/abp/grader/engines/codex-exec.sh', '{traceFile}']);
  });
});
