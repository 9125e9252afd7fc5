// Owns the adapters abp ships for real engine CLIs (docs/adapters.md walks through them): for each engine, where its
// program is inside its install (the npm wrapper's platform package, whose own install script never runs; or the entry
// script of a PyPI package in its virtual environment), how
// it is pointed at its provider (the real API by default, or another endpoint such as a gateway or the model-provider
// stand-in), the egress allow-list that lets it reach that endpoint and nothing else, its key, its trace translator
// and its preflight. The pinned versions are data/real-engines.json, which scripts/install-engines.sh installs.
import { readFileSync } from 'node:fs';
import { arch } from 'node:os';
import { dirname, join } from 'node:path';
import { packageRoot } from '../package-root.js';

export const REAL_ENGINES = ['claude-code', 'codex', 'hermes', 'mini-swe-agent'] as const;
export type RealEngine = (typeof REAL_ENGINES)[number];

/** A package on npm or on PyPI, at one version. */
type Pin = ({ npm: string } | { pypi: string }) & { version: string };

/** The pinned versions, as data/real-engines.json lists them. */
export function realEnginePins(): Record<RealEngine, Pin> {
  const file = join(packageRoot, 'data', 'real-engines.json');
  return (JSON.parse(readFileSync(file, 'utf8')) as { engines: Record<RealEngine, Pin> }).engines;
}

const machine = arch() === 'arm64' ? { node: 'arm64', rust: 'aarch64' } : { node: 'x64', rust: 'x86_64' };

/**
 * The engine's program inside `installDir`: the native binary `npm install <package>` made there, or the entry script
 * in the virtual environment the package was installed into (run by the venv's python3, see pythonOf).
 */
export function realEngineBinary(engine: RealEngine, installDir: string): string {
  const modules = join(installDir, 'node_modules');
  switch (engine) {
    case 'hermes':
      return join(installDir, 'bin', 'hermes');
    case 'mini-swe-agent':
      return join(installDir, 'bin', 'mini');
    case 'claude-code':
      return join(modules, '@anthropic-ai', `claude-code-linux-${machine.node}`, 'claude');
    case 'codex':
      return join(
        modules,
        '@openai',
        `codex-linux-${machine.node}`,
        'vendor',
        `${machine.rust}-unknown-linux-musl`,
        'bin',
        'codex',
      );
  }
}

// The install script makes a venv in one folder and moves it to another, so its entry scripts' shebangs name a folder
// that is gone: they are run by the venv's own python3, which finds the venv wherever it is.
const pythonOf = (installDir: string) => join(installDir, 'bin', 'python3');

/** Where the engine sends its model calls: its provider's API unless an endpoint is given. */
export interface Endpoint {
  /** The base URL the engine is given. */
  url: string;
  /** The egress rule that lets it through: the host (as the URL names it) and port. */
  host: string;
  port: number;
}

const PROVIDERS: Record<RealEngine, { provider: string; endpoint: Endpoint; key: string; model: string }> = {
  'claude-code': {
    provider: 'anthropic',
    endpoint: { url: 'https://api.anthropic.com', host: 'api.anthropic.com', port: 443 },
    key: 'ANTHROPIC_API_KEY',
    model: 'claude-sonnet-4-5',
  },
  codex: {
    provider: 'openai',
    endpoint: { url: 'https://api.openai.com/v1', host: 'api.openai.com', port: 443 },
    key: 'OPENAI_API_KEY',
    model: 'gpt-5',
  },
  hermes: {
    provider: 'openai',
    endpoint: { url: 'https://api.openai.com/v1', host: 'api.openai.com', port: 443 },
    key: 'OPENAI_API_KEY',
    model: 'gpt-5',
  },
  'mini-swe-agent': {
    provider: 'openai',
    endpoint: { url: 'https://api.openai.com/v1', host: 'api.openai.com', port: 443 },
    key: 'OPENAI_API_KEY',
    model: 'gpt-5',
  },
};

export interface RealEngineOptions {
  /** The engine's install folder (scripts/install-engines.sh: .tools/engines/<engine>). */
  installDir: string;
  /** Its name in the run; the engine's own name by default. */
  name?: string;
  /** The provider's model name; claude-sonnet-4-5 and gpt-5 by default. */
  model?: string;
  /** Another endpoint than the provider's API. */
  endpoint?: Endpoint;
  /** Text added to the engine's system prompt (a stand-in's script tells conversations apart by it). */
  note?: string;
  timeoutSeconds?: number;
  preflightSeconds?: number;
}

/** The adapter entry (abp-adapters/v1) for a real engine under the sandboxed policy. */
export function realEngineAdapter(engine: RealEngine, options: RealEngineOptions): Record<string, unknown> {
  const { provider, key, ...defaults } = PROVIDERS[engine];
  const endpoint = options.endpoint ?? defaults.endpoint;
  const model = options.model ?? defaults.model;
  const binary = realEngineBinary(engine, options.installDir);
  // Braces in an adapter's argument are placeholders: the note's own are text.
  const note = options.note?.replace(/[{}]/g, (brace) => brace + brace);
  const shared = {
    engine: options.name ?? engine,
    egress: [{ host: endpoint.host, ports: [endpoint.port] }],
    timeoutSeconds: options.timeoutSeconds ?? 1200,
    metadata: { model: `${provider}/${model}`, provider, deployment: 'cloud' },
    capabilities: ['edit-files', 'run-commands'],
  };
  const preflight = (command: string[]) => ({
    prompt: 'Reply with exactly: ABP-PREFLIGHT-OK',
    sentinel: 'ABP-PREFLIGHT-OK',
    timeoutSeconds: options.preflightSeconds ?? 120,
    command,
  });
  switch (engine) {
    case 'claude-code': {
      const base = [binary, '-p', '{prompt}', '--model', model];
      return {
        ...shared,
        // Partial messages carry each call's output tokens (the API's message_delta); the assistant lines do not.
        command: [
          ...base,
          '--output-format',
          'stream-json',
          '--verbose',
          '--include-partial-messages',
          '--allowedTools',
          'Bash,Read,Edit,Write',
          ...(note === undefined ? [] : ['--append-system-prompt', note]),
        ],
        program: [dirname(binary)],
        env: {
          allow: [key],
          set: {
            CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
            ...(options.endpoint === undefined ? {} : { ANTHROPIC_BASE_URL: endpoint.url }),
          },
        },
        maxOutputBytes: 64 * 1024 * 1024,
        metadata: { ...shared.metadata, toolPolicy: 'bash-read-edit-write' },
        preflight: preflight([...base, '--output-format', 'text']),
        trace: { kind: 'sidecar', translator: 'claude-code-stream-json', from: 'stdout' },
      };
    }
    case 'codex': {
      const wrapper = join(packageRoot, 'engines', 'codex-exec.sh');
      // Another endpoint is a provider of Codex's own, in dotted keys: braces in an argument are placeholders.
      const endpointArgs =
        options.endpoint === undefined
          ? []
          : [
              ...Object.entries({
                name: 'abp-endpoint',
                base_url: endpoint.url,
                env_key: key,
                wire_api: 'responses',
              }).flatMap(([field, value]) => ['-c', `model_providers.abp.${field}="${value}"`]),
              '-c',
              'model_provider=abp',
            ];
      const base = [
        binary,
        'exec',
        '--skip-git-repo-check',
        '--model',
        model,
        // abp's sandbox is the isolation: Codex's own (a nested bubblewrap) cannot start inside it.
        '--dangerously-bypass-approvals-and-sandbox',
        ...endpointArgs,
      ];
      const noteArgs = note === undefined ? [] : ['-c', `developer_instructions=${JSON.stringify(note)}`];
      return {
        ...shared,
        // The wrapper hands Codex's session log, the only per-call record of its usage, to the trace.
        command: ['/bin/sh', wrapper, '{traceFile}', ...base, ...noteArgs, '{prompt}'],
        program: [join(binary, '..', '..'), wrapper],
        env: { allow: [key], set: {} },
        maxOutputBytes: 16 * 1024 * 1024,
        metadata: { ...shared.metadata, toolPolicy: 'full-access' },
        preflight: preflight([...base, '{prompt}']),
        trace: { kind: 'sidecar', translator: 'codex-rollout', from: 'traceFile' },
      };
    }
    case 'hermes': {
      const wrapper = join(packageRoot, 'engines', 'hermes-oneshot.sh');
      // Hermes's own OpenAI API provider, which takes its base URL from OPENAI_BASE_URL as the openai SDK does.
      const base = [pythonOf(options.installDir), binary, '-z', '{prompt}', '--provider', 'openai-api', '-m', model];
      return {
        ...shared,
        // The wrapper sets up the hooks that see each model call's usage and hands what they saw to the trace.
        command: ['/bin/sh', wrapper, '{traceFile}', ...(note === undefined ? [] : ['--note', note]), ...base],
        program: [options.installDir, dirname(wrapper)],
        env: {
          allow: [key],
          set: options.endpoint === undefined ? {} : { OPENAI_BASE_URL: endpoint.url },
        },
        maxOutputBytes: 16 * 1024 * 1024,
        metadata: { ...shared.metadata, toolPolicy: 'hermes-default-toolsets' },
        // One-shot mode prints the final answer alone.
        preflight: preflight(base),
        trace: { kind: 'sidecar', translator: 'hermes-hooks', from: 'traceFile' },
      };
    }
    case 'mini-swe-agent': {
      const python = pythonOf(options.installDir);
      const apiBase = options.endpoint === undefined ? [] : ['-c', `model.model_kwargs.api_base=${endpoint.url}`];
      // mini-swe-agent's system prompt can only be replaced, not added to: the note follows the task instead.
      const afterTask = note === undefined ? '' : `\n\n${note}`;
      return {
        ...shared,
        // Its trajectory (-o) keeps every model response with its usage; mini.yaml is its default configuration,
        // named because any -c replaces the default.
        command: [
          python,
          binary,
          '--yolo',
          '--exit-immediately',
          '--model',
          `${provider}/${model}`,
          '--task',
          `{prompt}${afterTask}`,
          '--output',
          '{traceFile}',
          '--config',
          'mini.yaml',
          ...apiBase,
        ],
        program: [options.installDir, join(packageRoot, 'engines')],
        env: {
          allow: [key],
          set: {
            // No first-run questions; LiteLLM's bundled price table rather than a download from GitHub.
            MSWEA_CONFIGURED: 'true',
            LITELLM_LOCAL_MODEL_COST_MAP: 'True',
          },
        },
        maxOutputBytes: 16 * 1024 * 1024,
        metadata: { ...shared.metadata, toolPolicy: 'bash-only' },
        // Its agent loop answers only in shell commands; the preflight asks the model through the same LiteLLM call.
        preflight: preflight([
          python,
          join(packageRoot, 'engines', 'litellm-preflight.py'),
          `${provider}/${model}`,
          '{prompt}',
          ...(options.endpoint === undefined ? [] : [endpoint.url]),
        ]),
        trace: { kind: 'sidecar', translator: 'mini-swe-agent-trajectory', from: 'traceFile' },
      };
    }
  }
}

/** The provider whose API the engine speaks ("anthropic" or "openai"), and so which endpoints it can be pointed at. */
export function realEngineProvider(engine: RealEngine): string {
  return PROVIDERS[engine].provider;
}

/** The variable each engine reads its key from. */
export function realEngineKey(engine: RealEngine): string {
  return PROVIDERS[engine].key;
}
