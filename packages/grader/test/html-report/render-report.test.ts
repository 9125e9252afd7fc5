// report.html from real results folders: the mismatched-models banner first, escaping of everything engines write,
// one SVG per metric, receipts as links, and the same bytes for the same folder.
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { gatedMetrics } from '@abp/protocol/schemas/abp-baseline';
import type { AbpRun } from '@abp/protocol/schemas/abp-run';
import type { AbpTrial } from '@abp/protocol/schemas/abp-trial';
import { readRunResults, type RunResults } from '../../src/results/index.js';
import { renderReport } from '../../src/html-report/index.js';
import { buildVerdict } from '../../src/run/verdict.js';
import {
  makeRun,
  makeVerdict,
  matrix,
  MODEL,
  rewriteSealed,
  writeResultsFolder,
  type TrialSpec,
} from '../support/results.js';

const root = await mkdtemp(join(tmpdir(), 'abp-report-'));
afterAll(() => rm(root, { recursive: true, force: true }));

const SCRIPT = '<script>alert(1)</script>';
const engines = [
  { name: 'oxagen', version: '1.4.2' },
  { name: 'claude-code', version: '2.1.0' },
];
const matchedRun = makeRun({ engines, tasks: ['task-a', 'task-b', 'task-c'], trials: 2 });

function hostile(task: string, engine: string, trial: number): Partial<TrialSpec> {
  if (task === 'task-c' && engine === 'claude-code')
    return {
      outcome: 'engine-error',
      reason: SCRIPT,
      detail: `<img src=x onerror=alert(2)> "quoted" & 'single'`,
      metrics: { diffBytesNormalized: null, tokensTotal: null, wallClockMs: null, computedUsd: null },
    };
  return {
    outcome: task === 'task-b' && trial === 1 ? 'unresolved' : 'resolved',
    metrics: { tokensTotal: 40_000 + trial * 5_000 + (engine === 'oxagen' ? 0 : 9_000) },
  };
}

let folders = 0;
async function resultsOf(
  run: AbpRun,
  options: { withVerdict?: boolean; warnings?: string[]; without?: string } = {},
): Promise<RunResults> {
  const parent = join(root, `case-${(folders += 1)}`);
  await mkdir(parent);
  const verdict = makeVerdict(run, {
    matchedModels: run.matchedModels,
    warnings: options.warnings ?? [`small sample ${SCRIPT}`],
    pairwise: [
      {
        a: 'oxagen',
        b: 'claude-code',
        mcnemar: { discordant: [2, 0], pExact: 0.5 },
        diffDelta: { relMedian: -0.22, bootstrap95: [-0.31, -0.09], seed: 20260718 },
        pairedTrials: 4,
        tokensDelta: null,
      },
    ],
  });
  const folder = await writeResultsFolder(parent, {
    run,
    trials: matrix(run, hostile).filter((trial) => trial.trialId !== options.without),
    ...(options.withVerdict === false ? { finished: false } : { verdict }),
  });
  return readRunResults(folder);
}

const bodyOf = (html: string) => html.slice(html.indexOf('<body>') + '<body>'.length).trimStart();

describe('renderReport', () => {
  it('leads with the warning banner when the models were not matched, and withholds the paired comparison', async () => {
    const run = makeRun({
      ...matchedRun,
      matchedModels: false,
      engines: [engines[0]!, { ...engines[1]!, model: 'openai/gpt-5.2' }],
    });
    const html = renderReport(await resultsOf(run));
    expect(bodyOf(html).startsWith('<div class="banner" id="mismatched-models" role="alert">')).toBe(true);
    expect(html).toContain('No engine-vs-engine conclusion may be drawn');
    expect(html).toContain('claude-code: openai/gpt-5.2');
    expect(html).not.toContain('McNemar p</th>');
  });

  it('has no banner for a matched run, and shows the per-engine and paired tables', async () => {
    const html = renderReport(await resultsOf(matchedRun));
    expect(html).not.toContain('class="banner"');
    expect(bodyOf(html).startsWith('<header>')).toBe(true);
    expect(html).toContain('<section id="engines">');
    expect(html).toContain('50.0% <small>[9.0%, 91.0%]</small>');
    expect(html).toContain('<td class="num">2 / 0</td><td class="num">0.500</td>');
    expect(html).toContain('-22.0% <small>[-31.0%, -9.0%], seed 20260718</small>');
    expect(html).toContain(`<code>${matchedRun.reproduce}</code>`);
    expect(html).toContain(MODEL);
  });

  it('escapes every string that came from the run, ids included', async () => {
    const results = await resultsOf(matchedRun);
    // Ids cannot carry markup past the schema; a report must still be safe if handed such data directly.
    const [first, ...rest] = results.trials;
    const evil: AbpTrial = {
      ...first!,
      task: '<script>steal()</script>',
      engine: '"><svg onload=x>',
      receipts: { ...first!.receipts, trace: 'javascript:alert(3)' },
    };
    const html = renderReport({ ...results, trials: [evil, ...rest] });
    expect(html).not.toMatch(/<script/i);
    expect(html).not.toMatch(/<img/i);
    expect(html).not.toContain('<svg onload');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;'); // the reason
    expect(html).toContain('&lt;img src=x onerror=alert(2)&gt; &quot;quoted&quot; &amp; &#39;single&#39;'); // the detail
    expect(html).toContain('small sample &lt;script&gt;'); // a verdict warning
    expect(html).toContain('&lt;script&gt;steal()&lt;/script&gt;');
    expect(html).toContain('href="javascript%3Aalert(3)"');
  });

  it("shows each engine's resolve rate per difficulty band of the verdict, after the per-engine table", async () => {
    const results = await resultsOf(matchedRun);
    const goldenSizes = new Map([
      ['task-a', { diffBytesNormalized: 120, filesTouched: 1 }],
      ['task-b', { diffBytesNormalized: 300, filesTouched: 2 }],
      ['task-c', null],
    ]);
    const verdict = buildVerdict({ ...matchedRun, id: 'run-current' }, results.trials, { goldenSizes });
    const html = renderReport({ ...results, verdict });
    const section = html.slice(html.indexOf('<section id="difficulty">'), html.indexOf('<section id="pairwise">'));
    expect(html.indexOf('<section id="engines">')).toBeLessThan(html.indexOf('<section id="difficulty">'));
    expect(section).toContain(
      '<h3>By golden diff size</h3><p class="notice">Edges 120 B and 300 B: small up to the first, medium above it up to the second, large above the second.</p>',
    );
    expect(section).toContain(
      '<th>small <small>120 B, 1 task</small></th><th>medium <small>300 B, 1 task</small></th><th>unknown <small>no golden fix, 1 task</small></th>',
    );
    // oxagen resolved task-a twice and task-b once of two; claude-code's task-c trials were engine errors: no rate.
    expect(section).toContain(
      '<tr><th scope="row">oxagen</th><td class="num">100.0% <small>[34.2%, 100.0%]</small> <small>2/2</small></td>' +
        '<td class="num">50.0% <small>[9.5%, 90.5%]</small> <small>1/2</small></td>',
    );
    expect(section).toContain('<td class="num">— <small>0/0</small></td></tr>');
    expect(section).toContain('<h3>By golden files touched</h3>');
    expect(section).toContain('<th>medium <small>2 files, 1 task</small></th>');
    // A verdict without bands (another harness's, or an older one) has no such section.
    expect(renderReport(results)).not.toContain('<section id="difficulty">');
  });

  it('draws one SVG per metric, a dot per resolved trial with a value', async () => {
    const results = await resultsOf(matchedRun);
    const html = renderReport(results);
    const svgs = [...html.matchAll(/<svg [^>]*data-metric="([^"]+)"[^>]*>([\s\S]*?)<\/svg>/g)];
    expect(svgs.map((match) => match[1])).toEqual([...gatedMetrics]);
    const resolved = results.trials.filter((trial) => trial.outcome === 'resolved').length;
    for (const [, , inner] of svgs) expect(inner?.match(/<circle /g)).toHaveLength(resolved);
  });

  it('links each trial to its receipts', async () => {
    const html = renderReport(await resultsOf(matchedRun));
    const id = 'task-a.oxagen.0';
    expect(html).toContain(
      `<a href="trials/${id}.json">trial</a><a href="transcripts/${id}.stdout.txt">stdout</a><a href="transcripts/${id}.stderr.txt">stderr</a>` +
        `<a href="transcripts/${id}.verification.txt">verification</a><a href="diffs/${id}.patch">diff</a></td>`,
    );
  });

  it('is self-contained: no scripts, no network, no external fonts', async () => {
    const html = renderReport(await resultsOf(matchedRun));
    // Engines' text may say "src=" (escaped, as text); no element may load anything.
    expect(html).not.toMatch(/<script|<link|<img|<iframe|@import|url\(|<[a-z]+\s[^>]*\bsrc=/i);
    expect(html.match(/https?:\/\/[^"\s]+/g)).toEqual(gatedMetrics.map(() => 'http://www.w3.org/2000/svg'));
    expect(html).toContain(`content="default-src 'none'; style-src 'unsafe-inline'"`);
  });

  it('renders the same bytes for the same folder, wherever it lies', async () => {
    const first = renderReport(await resultsOf(matchedRun));
    const second = renderReport(await resultsOf(matchedRun));
    expect(second).toBe(first);
  });

  it('reports a run in progress: no verdict yet and the trials still missing', async () => {
    const results = await resultsOf(matchedRun, { withVerdict: false, without: 'task-c.oxagen.1' });
    const html = renderReport(results);
    expect(html).toContain('There is no verdict.json yet');
    expect(html).toContain('1 of 6 trials of oxagen have no readable record in trials/ (task-c × oxagen × trial 1)');
    expect(html).not.toContain('<section id="engines">');
    expect(html).toContain('<h2>Trials (11)</h2>');
  });

  it('renders a finished run around a sealed trial file it cannot read, and names that file', async () => {
    const results = await resultsOf(matchedRun);
    const file = 'trials/task-a.oxagen.0.json';
    const trial = JSON.parse(await readFile(join(results.dir, file), 'utf8')) as Record<string, unknown>;
    await rewriteSealed(results.dir, file, JSON.stringify({ ...trial, outcome: 'won' }));
    const html = renderReport(await readRunResults(results.dir));
    expect(html).toContain('<section id="engines">');
    const warnings = html.slice(
      html.indexOf('<section id="warnings">'),
      html.indexOf('</section>', html.indexOf('<section id="warnings">')),
    );
    expect(warnings).toContain(file);
    expect(html).toContain('<h2>Trials (11)</h2>');
  });
});
