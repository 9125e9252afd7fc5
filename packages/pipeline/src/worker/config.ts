// Where the running parts of abp live and how they are reached: data directory, Temporal address,
// server binaries. Read once from the environment; everything else takes the resolved object.
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';
import { StackError } from './errors.js';
import { packageRoot } from '../package-root.js';
import { homePaths } from '@abp/grader/home';

/** Where scripts/install-temporal.sh puts the servers: .tools/ at the root of the repository this package is in. */
const DEFAULT_TOOLS_DIR = join(packageRoot, '..', '..', '.tools');

export interface StackConfig {
  /** Data directory: PGlite files, Temporal's SQLite store, pid and log files. */
  home: string;
  temporal: {
    /** `embedded`: abp starts the dev server itself; `external`: TEMPORAL_ADDRESS points at a cluster. */
    mode: 'embedded' | 'external';
    address: string;
    namespace: string;
    /** Only meaningful in embedded mode. */
    port: number;
    uiPort: number;
  };
  /**
   * Where the worker's freezes run their suites. `environment` (the default): each task's environment is built, or
   * reused, in `store` and every run happens inside it. `host`: on this machine's own toolchains, for repositories that
   * need nothing else; their tasks name no image and are graded on the consumer's host.
   */
  freeze: { runsIn: 'environment' | 'host'; store: string };
}

type Env = Record<string, string | undefined>;

function portFrom(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 1 || port > 65_535) {
    throw new StackError(
      'invalid-setting',
      `${name}=${raw} is not a TCP port: use a whole number from 1 to 65535, e.g. ${name}=${fallback}`,
    );
  }
  return port;
}

export function resolveStackConfig(env: Env = process.env, cwd = process.cwd()): StackConfig {
  const home = resolve(cwd, env.ABP_HOME || '.abp');
  const port = portFrom(env, 'ABP_TEMPORAL_PORT', 7233);
  const uiPort = portFrom(env, 'ABP_TEMPORAL_UI_PORT', port + 1000);
  const external = env.TEMPORAL_ADDRESS?.trim();
  const runsIn = env.ABP_FREEZE_IN?.trim() || 'environment';
  if (runsIn !== 'environment' && runsIn !== 'host')
    throw new StackError(
      'invalid-setting',
      `ABP_FREEZE_IN=${runsIn} is not where a freeze runs: use ABP_FREEZE_IN=environment (each task's own image, the default) or ABP_FREEZE_IN=host (this machine's toolchains)`,
    );
  return {
    home,
    freeze: { runsIn, store: homePaths(home, env).environments },
    temporal: {
      mode: external ? 'external' : 'embedded',
      address: external || `127.0.0.1:${port}`,
      namespace: env.TEMPORAL_NAMESPACE?.trim() || 'default',
      port,
      uiPort,
    },
  };
}

export type TemporalBinary = 'temporal' | 'temporal-test-server';

const binaryOverride: Record<TemporalBinary, string> = {
  temporal: 'ABP_TEMPORAL_CLI',
  'temporal-test-server': 'ABP_TEMPORAL_TEST_SERVER',
};

/**
 * Finds a Temporal server binary: an explicit override, then what scripts/install-temporal.sh
 * installed under .tools/bin, then PATH (a user with their own `temporal` CLI).
 */
export function findTemporalBinary(name: TemporalBinary, env: Env = process.env): string {
  const override = env[binaryOverride[name]];
  if (override) {
    if (!isExecutable(override)) {
      throw new StackError(
        'missing-binary',
        `${binaryOverride[name]}=${override} is not an executable file: point it at a ${name} binary, or unset it`,
      );
    }
    return override;
  }
  const candidates = [
    join(env.ABP_TOOLS || DEFAULT_TOOLS_DIR, 'bin', name),
    ...(env.PATH ?? '')
      .split(delimiter)
      .filter(Boolean)
      .map((dir) => join(dir, name)),
  ];
  const found = candidates.find(isExecutable);
  if (!found) {
    throw new StackError(
      'missing-binary',
      `no ${name} binary found: run \`bash scripts/install-temporal.sh\`, set ${binaryOverride[name]} to its path` +
        (name === 'temporal' ? ', or set TEMPORAL_ADDRESS to a running cluster' : ''),
    );
  }
  return found;
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
