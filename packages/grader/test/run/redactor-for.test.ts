import { describe, expect, it } from 'vitest';
import { adaptersSchema, type Adapter } from '@abp/protocol/schemas/abp-adapters';
import { redactorFor } from '../../src/run/trial.js';

const adapter = adaptersSchema.parse({
  schema: 'abp-adapters/v1',
  executionPolicy: 'trusted-local',
  adapters: [
    {
      engine: 'e',
      command: ['/opt/engine/run'],
      env: { allow: ['MODEL_API_KEY'], set: { ENGINE_SESSION: 'set-session-value' } },
      metadata: {},
      preflight: { prompt: 'p', sentinel: 'ok' },
    },
  ],
}).adapters[0] as Adapter;

describe("a trial's redactor", () => {
  it("hides every secret-looking value of the grader's environment, given to the engine or not", () => {
    const hostEnv = {
      MODEL_API_KEY: 'allowed-key-value',
      DEPLOY_TOKEN: 'grader-only-token-value',
      DATABASE_PASSWORD: 'grader-only-password',
      EDITOR: 'vim-editor-plain',
    };
    const redactor = redactorFor(adapter, { hostEnv }, '/work/trial/workspace');
    const leaked = `from /proc: DEPLOY_TOKEN=grader-only-token-value DATABASE_PASSWORD=grader-only-password EDITOR=vim-editor-plain key=allowed-key-value session=set-session-value`;
    expect(redactor.redactText(leaked)).toBe(
      'from /proc: DEPLOY_TOKEN=[REDACTED:env:DEPLOY_TOKEN] DATABASE_PASSWORD=[REDACTED:env:DATABASE_PASSWORD] EDITOR=vim-editor-plain key=[REDACTED:env:MODEL_API_KEY] session=[REDACTED:env:ENGINE_SESSION]',
    );
  });
});
