// The adapters abp ships for real engines: each one the schema accepts, reaching only its provider (or the endpoint
// it is given), and the versions they are tested with the ones scripts/install-engines.sh installs.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { adaptersSchema } from '@abp/protocol/schemas/abp-adapters';
import { REAL_ENGINES, realEngineAdapter, realEngineKey, realEnginePins } from '../../src/engines/real-engines.js';
import { packageRoot } from '../../src/package-root.js';
import { expandPlaceholders } from '../../src/execution/placeholders.js';

const parse = (adapter: Record<string, unknown>) =>
  adaptersSchema.parse({ schema: 'abp-adapters/v1', executionPolicy: 'sandboxed', adapters: [adapter] }).adapters[0];

describe('the real-engine adapters', () => {
  it.each(REAL_ENGINES)(
    "%s: valid, on its provider's API alone, its key passed by name, its trace translated",
    (engine) => {
      const adapter = parse(realEngineAdapter(engine, { installDir: '/opt/engines/x' }));
      const host = engine === 'claude-code' ? 'api.anthropic.com' : 'api.openai.com';
      expect(adapter?.egress).toEqual([{ host, ports: [443] }]);
      expect(adapter?.env.allow).toEqual([realEngineKey(engine)]);
      expect(adapter?.trace.kind).toBe('sidecar');
      // Every folder the command needs is listed, so the sandbox binds it.
      expect(adapter?.program.every((path) => path.startsWith('/'))).toBe(true);
    },
  );

  it.each(REAL_ENGINES)('%s: pointed at another endpoint, reaches that one only and is told so', (engine) => {
    const endpoint = { url: 'http://host.abp.internal:8089/v1', host: 'host.abp.internal', port: 8089 };
    const adapter = parse(realEngineAdapter(engine, { installDir: '/opt/engines/x', endpoint, note: 'marker' }));
    expect(adapter?.egress).toEqual([{ host: 'host.abp.internal', ports: [8089] }]);
    const told = [...(adapter?.command ?? []), ...Object.values(adapter?.env.set ?? {})].join(' ');
    expect(told).toContain(endpoint.url);
    expect(told).toContain('marker');
  });

  it.each(REAL_ENGINES)('%s: a note with braces reaches the engine as written, not as placeholders', (engine) => {
    const note = 'abp-script: {fix} {{done}}';
    const adapter = parse(realEngineAdapter(engine, { installDir: '/opt/engines/x', note }));
    const values = Object.fromEntries(
      ['repo', 'workspace', 'state', 'promptFile', 'inputFile', 'prompt', 'trialId', 'traceFile'].map((name) => [
        name,
        `<${name}>`,
      ]),
    ) as Parameters<typeof expandPlaceholders>[1];
    expect(expandPlaceholders(adapter?.command ?? [], values).join('\n')).toContain(note);
  });

  it('pins the versions the install script installs', () => {
    const script = readFileSync(join(packageRoot, '..', '..', 'scripts', 'install-engines.sh'), 'utf8');
    expect(script).toContain('packages/grader/data/real-engines.json');
    expect(Object.keys(realEnginePins()).sort()).toEqual([...REAL_ENGINES].sort());
    for (const [engine, pin] of Object.entries(realEnginePins())) {
      expect(pin.version).toMatch(/^\d+\.\d+\.\d+$/);
      if (!('pypi' in pin)) continue;
      // A PyPI engine's install pins every package it brings, its own at the adapter's version.
      const constraints = readFileSync(join(packageRoot, 'data', 'real-engines', `${engine}.txt`), 'utf8');
      const lines = constraints.split('\n').filter((line) => line !== '' && !line.startsWith('#'));
      expect(lines.every((line) => /^[A-Za-z0-9._-]+==[^=\s]+$/.test(line))).toBe(true);
      expect(lines).toContain(`${pin.pypi}==${pin.version}`);
    }
  });
});
