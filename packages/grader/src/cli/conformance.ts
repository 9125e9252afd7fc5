// `abp conformance`: the public conformance suite, run through the real grader, with its receipts (spec §9).
import { mkdtemp, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { ConformanceError } from '../conformance/errors.js';
import { runRealEngineLeg, type RealEngineEntry } from '../conformance/real-engine-leg.js';
import { runConformance } from '../conformance/run-conformance.js';
import {
  REAL_ENGINES,
  realEngineKey,
  realEngineProvider,
  type Endpoint,
  type RealEngine,
} from '../engines/real-engines.js';
import { jsonText, writeFileAtomic } from '../run/files.js';
import { CommandFailed, createOutput } from './output.js';

export async function conformanceCommand(options: {
  output?: string;
  json?: boolean;
  realEngines?: string;
  enginesDir?: string;
  providerUrl: string[];
}): Promise<void> {
  if (options.realEngines !== undefined) return realEngineLegCommand({ ...options, realEngines: options.realEngines });
  const out = createOutput(options);
  const output = resolve(options.output ?? (await mkdtemp(join(tmpdir(), 'abp-conformance-'))));
  const report = await runConformance({ output, onLine: (line) => out.line(line) });
  for (const check of report.checks)
    out.line(`${check.passed ? 'pass' : 'FAIL'}  ${check.level.padEnd(10)} ${check.id}: ${check.detail}`);
  const where = relative(process.cwd(), output) || '.';
  out.line(
    `\nconformance level demonstrated: ${report.level}\nreport:   ${join(where, 'conformance.json')}\nreceipts: ${join(where, report.results)}`,
  );
  out.data({ ...report, output });
  if (report.level === 'none')
    throw new CommandFailed(
      'conformance-failed',
      `the grader failed ABP-core checks: ${report.checks
        .filter((check) => !check.passed)
        .map((check) => check.id)
        .join(', ')}`,
      options.json === true,
    );
}

/** "anthropic=https://gateway.example/" as the endpoint the provider's engines are pointed at and allowed to reach. */
function providerEndpoints(values: string[]): Map<string, Endpoint> {
  const endpoints = new Map<string, Endpoint>();
  for (const value of values) {
    const [provider = '', url = ''] = value.split(/=(.*)/s);
    let parsed: URL | null = null;
    try {
      parsed = new URL(url);
    } catch {
      parsed = null;
    }
    if (!['anthropic', 'openai'].includes(provider) || parsed === null || !/^https?:$/.test(parsed.protocol))
      throw new ConformanceError(
        'invalid-provider-url',
        `--provider-url ${JSON.stringify(value)}: give anthropic=<url> or openai=<url>, an http(s) URL such as openai=http://gateway:4000/v1`,
      );
    const port = parsed.port === '' ? (parsed.protocol === 'https:' ? 443 : 80) : Number(parsed.port);
    endpoints.set(provider, { url: url.replace(/\/$/, ''), host: parsed.hostname.toLowerCase(), port });
  }
  return endpoints;
}

async function realEngineLegCommand(options: {
  output?: string;
  json?: boolean;
  realEngines: string;
  enginesDir?: string;
  providerUrl: string[];
}): Promise<void> {
  const out = createOutput(options);
  const names = [
    ...new Set(
      options.realEngines === 'all' ? REAL_ENGINES : options.realEngines.split(',').map((name) => name.trim()),
    ),
  ];
  const unknown = names.filter((name) => !(REAL_ENGINES as readonly string[]).includes(name));
  if (unknown.length > 0 || names.length === 0)
    throw new ConformanceError(
      'unknown-real-engine',
      `--real-engines ${JSON.stringify(options.realEngines)}: abp has adapters for ${REAL_ENGINES.join(', ')} (or say "all")`,
    );
  // The leg runs against the real providers with the user's own keys: without one, an engine is not run at all.
  const keyless = (names as RealEngine[]).filter((engine) => !process.env[realEngineKey(engine)]);
  if (keyless.length > 0)
    throw new ConformanceError(
      'engine-key-missing',
      keyless
        .map((engine) => `${engine} reads its key from ${realEngineKey(engine)}, which is not set`)
        .concat(['export the keys, or leave those engines out of --real-engines'])
        .join('; '),
    );
  const endpoints = providerEndpoints(options.providerUrl);
  const entries: RealEngineEntry[] = (names as RealEngine[]).map((engine) => {
    const endpoint = endpoints.get(realEngineProvider(engine));
    return { engine, ...(endpoint === undefined ? {} : { endpoint }) };
  });
  const output = resolve(options.output ?? (await mkdtemp(join(tmpdir(), 'abp-conformance-real-engines-'))));
  if ((await readdir(output).catch(() => [])).length > 0)
    throw new ConformanceError('output-not-empty', `${output} is not empty: pass an empty or new folder`);
  out.line(`running ${names.join(', ')} on the suite's slug task, sandboxed, each against its provider`);
  const report = await runRealEngineLeg({
    output,
    entries,
    enginesDir: resolve(options.enginesDir ?? '.tools/engines'),
  });
  const { runs, ...written } = report;
  const file = join(output, 'real-engines.json');
  await writeFileAtomic(
    file,
    jsonText({
      ...written,
      runs: runs.map((run) => ({ engine: run.engine, run: relative(output, run.outcome.runDir) })),
    }),
  );
  for (const check of report.checks)
    out.line(`${check.passed ? 'pass' : 'FAIL'}  ${check.level.padEnd(10)} ${check.id}: ${check.detail}`);
  for (const [engine, outcome] of Object.entries(report.outcomes))
    out.line(`${engine}: ${outcome} (reported, not checked)`);
  out.line(`\nreport: ${relative(process.cwd(), file) || file}`);
  out.data({ ...written, output });
  const failed = report.checks.filter((check) => !check.passed);
  if (failed.length > 0)
    throw new CommandFailed(
      'conformance-failed',
      `the grader failed real-engine checks: ${failed.map((check) => check.id).join(', ')}`,
      options.json === true,
    );
}
