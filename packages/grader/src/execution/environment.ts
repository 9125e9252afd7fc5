// Owns the environment an adapter or verification command sees: a small fixed base, the host
// variables a config allows by name, and literal values; nothing else of the host leaks through.

import { ExecutionError } from './errors.js';

const namePattern = /^[A-Za-z_][A-Za-z0-9_]*$/;
// The harness decides where a command looks for programs and where it may write scratch files.
const reserved: ReadonlySet<string> = new Set(['PATH', 'HOME', 'TMPDIR']);

export interface ReducedEnvironmentInput {
  readonly hostEnv: Readonly<Record<string, string | undefined>>;
  /** Host variables passed through by name (credentials, proxies); absent ones are reported. */
  readonly allow: readonly string[];
  /** Literal values; they win over the base and over allowed host values. */
  readonly set: Readonly<Record<string, string>>;
  readonly home: string;
  readonly tmp: string;
}

export function reducedEnvironment(input: ReducedEnvironmentInput): { env: Record<string, string>; missing: string[] } {
  for (const name of input.allow) checkName(name, 'allow');
  for (const name of Object.keys(input.set)) checkName(name, 'set');

  const env: Record<string, string> = {
    HOME: input.home,
    TMPDIR: input.tmp,
    LANG: 'C.UTF-8',
    LC_ALL: 'C.UTF-8',
    TZ: 'UTC',
    TERM: 'dumb',
  };
  const missing: string[] = [];
  const hostPath = input.hostEnv['PATH'];
  if (hostPath === undefined) missing.push('PATH');
  else env['PATH'] = hostPath;

  for (const name of input.allow) {
    const value = input.hostEnv[name];
    if (value === undefined) missing.push(name);
    else env[name] = value;
  }
  Object.assign(env, input.set);
  return { env, missing };
}

function checkName(name: string, list: 'allow' | 'set'): void {
  if (!namePattern.test(name)) {
    throw new ExecutionError(
      'invalid-variable-name',
      `environment ${list} names ${JSON.stringify(name)}, which is not a variable name; use letters, digits and underscores, not starting with a digit (e.g. "OPENAI_API_KEY")`,
    );
  }
  if (reserved.has(name)) {
    throw new ExecutionError(
      'reserved-variable',
      `environment ${list} names ${name}, which the grader sets itself (PATH is the host's, HOME and TMPDIR are the trial's own folders); remove ${name} from ${list}`,
    );
  }
}
