// Owns report.html: the one self-contained page a person opens from a results folder. Inline CSS and SVG, no scripts,
// no network, no clock, so the same folder always renders the same bytes (spec §3.5 receipts, §7 matched models).
// Links leave the page only to a task's signed bundle and statement, where it has a provenance.json (provenance.ts).
import { gatedMetrics, type GatedMetric } from '@abp/protocol/schemas/abp-baseline';
import type { AbpVerdict } from '@abp/protocol/schemas/abp-verdict';
import { DIFFICULTY_MEASURES, type DifficultyMeasure } from '@abp/protocol/schemas/difficulty-bands';
import {
  describeMissingTrials,
  describeUnreadableTrials,
  formatChange,
  formatInterval,
  formatMetric,
  formatPercent,
  formatPValue,
  metricLabels,
  missingTrials,
  runIdOf,
  type RunContents,
} from '../results/index.js';
import { escapeHtml, receiptHref } from './html.js';
import { stripPlot } from './plots.js';
import { parseServeUrl, ProvenanceError, provenanceLinks, type TaskProvenance } from '../pull/provenance.js';

type EngineResult = AbpVerdict['perEngine'][number];
type PairResult = AbpVerdict['pairwise'][number];
type Rate = EngineResult['resolveRate'];

const medianOf: Record<GatedMetric, (result: EngineResult) => number | null> = {
  diffBytesNormalized: (result) => result.medianDiffBytesNormalized,
  tokensTotal: (result) => result.medianTokensTotal,
  wallClockMs: (result) => result.medianWallClockMs,
  computedUsd: (result) => result.medianComputedUsd,
};

const deltaOf: Record<GatedMetric, (pair: PairResult) => PairResult['diffDelta'] | undefined> = {
  diffBytesNormalized: (pair) => pair.diffDelta,
  tokensTotal: (pair) => pair.tokensDelta,
  wallClockMs: (pair) => pair.wallClockDelta,
  computedUsd: (pair) => pair.costDelta,
};

const STYLE = `
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1b1f24;background:#fff;margin:0 auto;max-width:1200px;padding:1.5rem}
h1{font-size:1.5rem;margin:0 0 .5rem}h2{font-size:1.15rem;margin:2rem 0 .6rem;border-bottom:1px solid #d0d7de;padding-bottom:.25rem}h3{font-size:1rem;margin:1.2rem 0 .4rem}
.banner{background:#ffebe9;border:2px solid #cf222e;color:#82071e;padding:.9rem 1rem;border-radius:6px;margin-bottom:1.2rem}
.warnings li{margin:.2rem 0}.notice{color:#57606a}
dl.run{display:grid;grid-template-columns:max-content 1fr;gap:.15rem 1rem;margin:0}dl.run dt{font-weight:600}dl.run dd{margin:0}
.scroll{overflow-x:auto}table{border-collapse:collapse;font-size:.9rem;width:100%}
th,td{border:1px solid #d0d7de;padding:.3rem .5rem;text-align:left;vertical-align:top}thead th{background:#f6f8fa}
td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}small{color:#57606a}
.outcome-resolved{color:#116329;font-weight:600}.outcome-unresolved,.outcome-disqualified{color:#a40e26;font-weight:600}
.outcome-engine-error,.outcome-harness-error,.outcome-unsupported{color:#7d4e00;font-weight:600}
.receipts a{margin-right:.5rem}td code{font-size:.85em;word-break:break-all}figure{margin:1rem 0}figcaption{font-weight:600;margin-bottom:.3rem}
svg.plot{width:100%;max-width:720px;height:auto;font-size:12px}svg.plot circle{fill:#0969da;fill-opacity:.55}
svg.plot .median{stroke:#cf222e;stroke-width:2.5}svg.plot .grid{stroke:#eaeef2}svg.plot .axis{stroke:#57606a}svg.plot .empty{fill:#57606a}
pre{background:#f6f8fa;padding:.6rem .8rem;border-radius:6px;overflow-x:auto}
`;

export interface ReportOptions {
  /** Each task's provenance.json by task id (readTasksProvenance); a task without one shows no bundle. */
  provenance?: ReadonlyMap<string, TaskProvenance>;
  /** The base of an `abp serve` to link bundles and statements to, instead of the URLs recorded when they were pulled. */
  serveUrl?: string;
}

/**
 * The report of a results folder: warnings first, then per-engine and paired figures, plots, the tasks with their
 * bundles, the trials and the reproduce command.
 */
export function renderReport(results: RunContents, options: ReportOptions = {}): string {
  const { run, verdict } = results;
  const serveUrl = options.serveUrl === undefined ? null : parseServeUrl(options.serveUrl);
  const runId = runIdOf(results);
  const matched = run.matchedModels && verdict?.matchedModels !== false;
  const parts = [
    matched ? '' : mismatchBanner(results),
    header(results, runId),
    warnings(results),
    verdict ? engineTable(results, verdict) : '',
    verdict ? difficultyTables(verdict) : '',
    verdict ? pairTable(verdict, matched) : '',
    plots(results),
    taskTable(results, options.provenance ?? new Map(), serveUrl),
    trialTable(results),
    `<section id="reproduce"><h2>Reproduce</h2><pre><code>${escapeHtml(run.reproduce)}</code></pre></section>`,
  ];
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    // Defence in depth behind the escaping: nothing in this page may load or run anything.
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">`,
    `<title>${escapeHtml(`ABP run ${runId}`)}</title>`,
    `<style>${STYLE}</style>`,
    '</head>',
    '<body>',
    ...parts.filter((part) => part !== ''),
    '</body>',
    '</html>',
    '',
  ].join('\n');
}

function mismatchBanner(results: RunContents): string {
  const models = results.run.engines.map((engine) => `${engine.name}: ${engine.model ?? results.run.model}`).join(', ');
  return (
    '<div class="banner" id="mismatched-models" role="alert"><strong>The engines did not run the same model (matchedModels: false).</strong> ' +
    'No engine-vs-engine conclusion may be drawn from this run: every difference below mixes the engine with its model (ABP §3.1, §7). ' +
    `Models: ${escapeHtml(models)}.</div>`
  );
}

function header(results: RunContents, runId: string): string {
  const { run } = results;
  const engines = run.engines
    .map((engine) => `${engine.name} ${engine.version}${engine.model ? ` (model ${engine.model})` : ''}`)
    .join(', ');
  const rows: Array<[string, string]> = [
    ['Model', run.model],
    ['Matched models', run.matchedModels ? 'yes' : 'no'],
    ['Engines', engines],
    ['Tasks', String(results.tasks.length)],
    ['Trials per task and engine', String(run.trials)],
    ['Ordering', `${run.ordering}, seed ${run.seed}`],
    ['Budget and timeout', `$${run.budgetUsd} and ${run.timeoutSeconds} s per trial`],
    ['Host', `${run.host.os}/${run.host.arch}${run.host.containerized ? ', containerized' : ''}`],
  ];
  const list = rows.map(([term, value]) => `<dt>${term}</dt><dd>${escapeHtml(value)}</dd>`).join('');
  return `<header><h1>${escapeHtml(`ABP run ${runId}`)}</h1><dl class="run">${list}</dl></header>`;
}

function warnings(results: RunContents): string {
  const items = [...(results.verdict?.warnings ?? [])];
  const missing = missingTrials(results);
  if (missing.length > 0) items.push(`The run is incomplete: ${describeMissingTrials(results, missing)}.`);
  if (results.unreadable.length > 0)
    items.push(`${describeUnreadableTrials(results.unreadable)}; the trial table and the plots leave them out.`);
  if (!results.verdict)
    items.push('There is no verdict.json yet: the run has not finished, so only the trials recorded so far are shown.');
  if (items.length === 0) return '';
  return `<section id="warnings"><h2>Warnings</h2><ul class="warnings">${items.map((item) => `<li>${escapeHtml(item)}</li>`).join('')}</ul></section>`;
}

function engineTable(results: RunContents, verdict: AbpVerdict): string {
  const versions = new Map(results.run.engines.map((engine) => [engine.name, engine.version]));
  const count = (value: number | undefined) => `<td class="num">${value === undefined ? '—' : value}</td>`;
  const rows = verdict.perEngine.map((result) => {
    const version = versions.get(result.engine);
    const name = `${escapeHtml(result.engine)}${version === undefined ? '' : ` <small>${escapeHtml(version)}</small>`}`;
    const medians = gatedMetrics.map(
      (metric) => `<td class="num">${escapeHtml(formatMetric(metric, medianOf[metric](result)))}</td>`,
    );
    return (
      `<tr><th scope="row">${name}</th>${count(result.scoredTrials)}${count(result.resolvedTrials)}` +
      `${rateCell(result.resolveRate)}${rateCell(result.verifiedRateExecuted)}${rateCell(result.verifiedRateAllTrials)}` +
      `${count(result.excludedEngineErrors)}${count(result.excludedHarnessErrors)}${count(result.unsupportedTrials)}${count(result.disqualifiedTrials)}${medians.join('')}</tr>`
    );
  });
  const medianHeads = gatedMetrics.map((metric) => `<th>Median ${metricLabels[metric]}</th>`).join('');
  return (
    '<section id="engines"><h2>Per engine</h2>' +
    '<p class="notice">Rates are over scored trials with Wilson 95% intervals; engine and harness errors are excluded, not counted as losses. ' +
    'Verified (executed) leaves unsupported trials out; verified (all trials) counts them as not verified. Medians are over resolved trials.</p>' +
    '<div class="scroll"><table><thead><tr><th>Engine</th><th>Scored</th><th>Resolved</th><th>Resolve rate</th><th>Verified (executed)</th><th>Verified (all trials)</th>' +
    `<th>Engine errors</th><th>Harness errors</th><th>Unsupported</th><th>Disqualified</th>${medianHeads}</tr></thead>` +
    `<tbody>${rows.join('')}</tbody></table></div></section>`
  );
}

function rateText(rate: Rate | undefined): string {
  if (!rate) return '—';
  return `${formatPercent(rate.point)} <small>${formatInterval(rate.wilson95, formatPercent)}</small>`;
}

function rateCell(rate: Rate | undefined): string {
  return `<td class="num">${rateText(rate)}</td>`;
}

const measureLabels: Record<DifficultyMeasure, { title: string; unit: (size: number) => string }> = {
  diffBytesNormalized: { title: 'By golden diff size', unit: (size) => `${size} B` },
  filesTouched: { title: 'By golden files touched', unit: (size) => `${size} file${size === 1 ? '' : 's'}` },
};

/** Each engine's resolve rate per difficulty band, one table per golden size measure; nothing for a verdict without bands. */
function difficultyTables(verdict: AbpVerdict): string {
  const { difficulty } = verdict;
  if (difficulty === undefined) return '';
  const tables = DIFFICULTY_MEASURES.map((measure) => {
    const { title, unit } = measureLabels[measure];
    const { edges, bands } = difficulty[measure];
    const heads = bands.map((band) => {
      const tasks = `${band.tasks.length} task${band.tasks.length === 1 ? '' : 's'}`;
      const range =
        band.range === null
          ? 'no golden fix'
          : band.range[0] === band.range[1]
            ? unit(band.range[0])
            : `${unit(band.range[0])} – ${unit(band.range[1])}`;
      return `<th>${escapeHtml(band.band)} <small>${escapeHtml(`${range}, ${tasks}`)}</small></th>`;
    });
    const rows = verdict.perEngine.map((result) => {
      const cells = (result.byDifficulty?.[measure] ?? []).map(
        (rate) =>
          `<td class="num">${rateText(rate.resolveRate)} <small>${rate.resolvedTrials}/${rate.scoredTrials}</small></td>`,
      );
      return `<tr><th scope="row">${escapeHtml(result.engine)}</th>${cells.join('')}</tr>`;
    });
    const edgeText =
      edges.length === 0
        ? 'none: no task has a golden size'
        : `${unit(edges[0] ?? 0)} and ${unit(edges[1] ?? 0)}: small up to the first, medium above it up to the second, large above the second`;
    return (
      `<h3>${escapeHtml(title)}</h3><p class="notice">Edges ${escapeHtml(edgeText)}.</p>` +
      `<div class="scroll"><table><thead><tr><th>Engine</th>${heads.join('')}</tr></thead><tbody>${rows.join('')}</tbody></table></div>`
    );
  });
  return (
    '<section id="difficulty"><h2>Resolve rate by difficulty</h2>' +
    '<p class="notice">Tasks are banded by their golden fix\'s size (spec §4.5): the edges are the nearest-rank terciles of the task set\'s sizes, so tied tasks share a band, and a band left empty by ties is not shown; ' +
    "tasks without a golden fix (fixtures) form the unknown band. Each cell is the resolve rate over scored trials of the band's tasks, with its Wilson 95% interval, then resolved/scored.</p>" +
    `${tables.join('')}</section>`
  );
}

function pairTable(verdict: AbpVerdict, matched: boolean): string {
  const heading = '<section id="pairwise"><h2>Paired comparison</h2>';
  if (!matched) {
    return `${heading}<p class="notice">Withheld: the engines ran different models, so a paired comparison would present engine-plus-model differences as engine differences. verdict.json keeps the raw figures for audit.</p></section>`;
  }
  if (verdict.pairwise.length === 0)
    return `${heading}<p class="notice">The run has one engine, so there is nothing to pair.</p></section>`;
  const rows = verdict.pairwise.map((pair) => {
    const deltas = gatedMetrics.map((metric) => {
      const delta = deltaOf[metric](pair);
      if (!delta) return '<td class="num">—</td>';
      return `<td class="num">${formatChange(delta.relMedian)} <small>${formatInterval(delta.bootstrap95, formatChange)}, seed ${delta.seed}</small></td>`;
    });
    const [onlyA, onlyB] = pair.mcnemar.discordant;
    return (
      `<tr><th scope="row">${escapeHtml(pair.a)} vs ${escapeHtml(pair.b)}</th><td class="num">${pair.pairedTrials ?? '—'}</td>` +
      `<td class="num">${onlyA} / ${onlyB}</td><td class="num">${formatPValue(pair.mcnemar.pExact)}</td>${deltas.join('')}</tr>`
    );
  });
  const deltaHeads = gatedMetrics.map((metric) => `<th>Δ median ${metricLabels[metric]}</th>`).join('');
  return (
    `${heading}<p class="notice">Discordant pairs count trials (same task and trial) resolved by only A / only B; p is the exact two-sided McNemar test. ` +
    'Δ is (median A − median B) / median B over trials both resolved, with a seeded paired bootstrap 95% interval.</p>' +
    `<div class="scroll"><table><thead><tr><th>A vs B</th><th>Paired trials</th><th>Discordant (A only / B only)</th><th>McNemar p</th>${deltaHeads}</tr></thead>` +
    `<tbody>${rows.join('')}</tbody></table></div></section>`
  );
}

function plots(results: RunContents): string {
  const engines = results.run.engines.map((engine) => engine.name);
  const figures = gatedMetrics.map(
    (metric) =>
      `<figure><figcaption>${escapeHtml(`${metricLabels[metric]} per engine`)}</figcaption>${stripPlot(metric, engines, results.trials)}</figure>`,
  );
  return (
    '<section id="efficiency"><h2>Efficiency of resolved trials</h2>' +
    '<p class="notice">One dot per resolved trial (hover for task and value), the red bar at the median. Efficiency ranks only engines that resolved the task (spec §4.3).</p>' +
    `${figures.join('')}</section>`
  );
}

/** The id of a task's row in the tasks table, which each trial's task links to. */
function taskAnchor(taskId: string): string {
  return escapeHtml(`task-${taskId}`);
}

function link(href: string | null, text: string): string {
  // Provenance URLs are http(s) by schema and the serve URL by parseServeUrl: nothing else can become an href here.
  return href === null ? text : `<a href="${escapeHtml(href)}">${text}</a>`;
}

function signerText(provenance: TaskProvenance): string {
  const { signer } = provenance;
  switch (signer.kind) {
    case 'keyed':
      return `key ${signer.keyId.slice(0, 16)}…`;
    case 'keyless':
      return `${signer.identity} (issuer ${signer.issuer})`;
  }
}

function taskTable(
  results: RunContents,
  provenance: ReadonlyMap<string, TaskProvenance>,
  serveUrl: string | null,
): string {
  const rows = results.tasks.map((task) => {
    const head = `<tr id="${taskAnchor(task.id)}"><th scope="row">${escapeHtml(task.id)}</th><td><code>${escapeHtml(task.digest)}</code></td>`;
    const source = provenance.get(task.id);
    if (source === undefined)
      return `${head}<td colspan="2"><small>not from a signed bundle: the task folder has no provenance.json</small></td></tr>`;
    if (source.taskId !== task.id)
      throw new ProvenanceError(
        'provenance-mismatch',
        `the provenance given for task ${task.id} is task ${source.taskId}'s: read it with readTasksProvenance`,
      );
    const links = provenanceLinks(source, serveUrl);
    const signed = `signed by ${signerText(source)} at ${source.signedAt}, verified against trust root v${source.trustRootVersion}`;
    return (
      `${head}<td>${link(links.bundle, `<code>${escapeHtml(source.bundleDigest)}</code>`)}<br><small>held-out part <code>${escapeHtml(source.heldOutDigest)}</code></small></td>` +
      `<td>${link(links.statement, 'task-bundle statement')} <small>${escapeHtml(signed)}</small></td></tr>`
    );
  });
  const fromBundles = results.tasks.filter((task) => provenance.has(task.id)).length;
  return (
    `<section id="tasks"><h2>Tasks (${results.tasks.length})</h2>` +
    `<p class="notice">The graded digest covers what each trial was graded against (manifest, base commit, held-out files). ` +
    `${fromBundles} of ${results.tasks.length} tasks came from a signed bundle: their bundle digest and signed statement are as <code>abp pull</code> verified them.</p>` +
    '<div class="scroll"><table><thead><tr><th>Task</th><th>Graded digest</th><th>Bundle</th><th>Signed statement</th></tr></thead>' +
    `<tbody>${rows.join('')}</tbody></table></div></section>`
  );
}

function trialTable(results: RunContents): string {
  const rows = results.trials.map((trial) => {
    const links: Array<[string, string | null]> = [
      ['trial', `trials/${trial.trialId}.json`],
      ['stdout', trial.receipts.stdout],
      ['stderr', trial.receipts.stderr],
      ['verification', trial.receipts.verificationLog],
      ['diff', trial.receipts.diff],
      ['trace', trial.receipts.trace],
    ];
    const receipts = links
      .flatMap(([label, path]) => (path === null ? [] : [`<a href="${receiptHref(path)}">${label}</a>`]))
      .join('');
    const detail =
      trial.detail === null ? '' : `<details><summary>detail</summary>${escapeHtml(trial.detail)}</details>`;
    const metrics = gatedMetrics
      .map((metric) => `<td class="num">${escapeHtml(formatMetric(metric, trial.metrics[metric]))}</td>`)
      .join('');
    return (
      `<tr><td class="num">${trial.order}</td><td><a href="#${taskAnchor(trial.task)}">${escapeHtml(trial.task)}</a></td><td>${escapeHtml(trial.engine)}</td><td class="num">${trial.trial}</td>` +
      `<td class="outcome-${escapeHtml(trial.outcome)}">${escapeHtml(trial.outcome)}</td><td>${escapeHtml(trial.reason ?? '')}${detail}</td>${metrics}<td class="receipts">${receipts}</td></tr>`
    );
  });
  const metricHeads = gatedMetrics.map((metric) => `<th>${metricLabels[metric]}</th>`).join('');
  return (
    `<section id="trials"><h2>Trials (${results.trials.length})</h2>` +
    '<div class="scroll"><table><thead><tr><th>#</th><th>Task</th><th>Engine</th><th>Trial</th><th>Outcome</th><th>Reason</th>' +
    `${metricHeads}<th>Receipts</th></tr></thead><tbody>${rows.join('')}</tbody></table></div></section>`
  );
}
