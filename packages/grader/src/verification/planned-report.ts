// Owns reading the report a run left where its plan says (stdout, one file, or every file a pattern matches), for the
// freeze and the grader alike: bounded in size, and every failure naming the file at fault, so an operator reads
// which report of which run could not be read rather than an empty result.
import { readFile, readdir, stat } from 'node:fs/promises';
import { join, relative, resolve, sep } from 'node:path';
import { AbpError } from '@abp/protocol/errors';
import { mergeReports, parseReport, TestReportError, type ParsedReport } from '../test-reports/index.js';
import type { RunnerPlan } from './runner-recipes.js';

/**
 * The largest report read: past it no runner of a real suite writes, and a JavaScript string (V8's limit is about
 * 512 MiB) could not hold it anyway; what is larger is refused by its size, before it is read.
 */
export const MAX_REPORT_BYTES = 256 * 1024 * 1024;

/** `no-report`: the run left none where its plan says; `report-unreadable`: one is there but cannot be read. */
export type PlannedReportErrorCode = 'no-report' | 'report-unreadable';

export class PlannedReportError extends AbpError<PlannedReportErrorCode> {}

export interface RunOutput {
  readonly stdout: Buffer;
  /** The run's stdout was cut at the caller's bound: a report on it is incomplete. */
  readonly stdoutTruncated: boolean;
  readonly stderr: string;
}

export interface ReportPlace {
  /** The checkout the tests ran in, on this side: paths in the report are made relative to it. */
  readonly checkout: string;
  /** As the runner saw the checkout (inside a sandbox), when it differs. */
  readonly rootDir?: string;
  /** Where a `file` source's path (as the runner saw it) is on this side. */
  hostPath(path: string): string;
}

/** The files under `dir` of the checkout whose checkout-relative path matches, sorted. */
export async function matchingReportFiles(checkout: string, dir: string, pattern: RegExp): Promise<string[]> {
  const entries = await readdir(resolve(checkout, dir), { recursive: true, withFileTypes: true }).catch(() => []);
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => relative(checkout, join(entry.parentPath, entry.name)).split(sep).join('/'))
    .filter((path) => pattern.test(path))
    .sort();
}

async function readBounded(path: string, shown: string): Promise<string> {
  const size = await stat(path).then(
    (found) => found.size,
    (error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') throw new PlannedReportError('no-report', `it wrote no report at ${shown}`);
      throw new PlannedReportError('report-unreadable', `${shown}: ${error.message}`, { cause: error });
    },
  );
  if (size > MAX_REPORT_BYTES)
    throw new PlannedReportError(
      'report-unreadable',
      `${shown} is ${size} bytes, past the ${MAX_REPORT_BYTES}-byte limit on a report; run fewer tests per command`,
    );
  return readFile(path, 'utf8');
}

/** The parsed report of a run, or a PlannedReportError saying which report is missing or unreadable and why. */
export async function readPlannedReport(
  report: NonNullable<RunnerPlan['report']>,
  run: RunOutput,
  place: ReportPlace,
): Promise<ParsedReport> {
  const options = { rootDir: place.rootDir ?? place.checkout, stderr: run.stderr };
  const parsed = (what: string, read: () => ParsedReport): ParsedReport => {
    try {
      return read();
    } catch (error) {
      if (!(error instanceof TestReportError)) throw error;
      throw new PlannedReportError('report-unreadable', `${what}: ${error.message}`, { cause: error });
    }
  };
  switch (report.source.kind) {
    case 'stdout': {
      if (run.stdoutTruncated)
        throw new PlannedReportError('report-unreadable', 'its report on stdout was cut short at the output limit');
      if (run.stdout.length > MAX_REPORT_BYTES)
        throw new PlannedReportError('report-unreadable', `its report on stdout is past ${MAX_REPORT_BYTES} bytes`);
      const text = run.stdout.toString('utf8');
      return parsed('its report on stdout', () => parseReport(report.format, text, options));
    }
    case 'file': {
      const { path } = report.source;
      const text = await readBounded(place.hostPath(path), path);
      return parsed(path, () => parseReport(report.format, text, options));
    }
    case 'files': {
      const { dir, pattern } = report.source;
      const paths = await matchingReportFiles(place.checkout, dir, pattern);
      if (paths.length === 0)
        throw new PlannedReportError('no-report', `it wrote no report file matching ${String(pattern)} under ${dir}`);
      const texts: string[] = [];
      for (const path of paths) texts.push(await readBounded(join(place.checkout, path), path));
      try {
        return mergeReports(report.format, texts, options);
      } catch (error) {
        if (!(error instanceof TestReportError)) throw error;
        // Only now each file alone, to name the one that cannot be read.
        paths.forEach((path, at) => parsed(path, () => parseReport(report.format, texts[at] ?? '', options)));
        throw new PlannedReportError('report-unreadable', `${paths.join(', ')}: ${error.message}`, { cause: error });
      }
    }
  }
}
