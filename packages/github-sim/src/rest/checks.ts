// The world's CI verdicts through the Checks and Statuses APIs. The simulator's CI plays GitHub
// Actions (as its webhooks do): one check run named `test` per pull request head commit, its id
// the one the `check_run` webhook carries. Actions reports through the Checks API only, so the
// combined (legacy) status of a commit has no contexts unless a context is configured for CI
// that also posts commit statuses.
import type { CheckConclusion, SimPull, SimRepo, WorldReader } from '../world/model.js';
import { actionsApp, checkRunId, checkSuiteId, commitStatusId } from './github-actions.js';
import type { RestRenderer } from './representations.js';
import { githubTime, pullDatabaseId } from './representations.js';
import { eventLogOf, pullHead } from './world-capabilities.js';

type Json = Record<string, unknown>;

/** A verdict the world recorded for a commit: the pull request it was for, and when. */
export interface RecordedCheck {
  pull: SimPull;
  conclusion: CheckConclusion;
  at: string;
}

const checkName = 'test';
function allPulls(world: WorldReader, repo: SimRepo): SimPull[] {
  const total = world.pulls(repo, {}, 0, 0).total;
  return total === 0 ? [] : world.pulls(repo, {}, 0, total).items;
}

/**
 * The latest verdict per pull request on commit `sha` of `repo`. A world with an event log keeps
 * verdicts on commits that are no longer a head; otherwise only current heads carry one. A re-run
 * on the same commit replaces the verdict, so there is one check run per pull request and commit.
 */
export function recordedChecks(world: WorldReader, repo: SimRepo, sha: string): RecordedCheck[] {
  const log = eventLogOf(world);
  if (log === null) {
    return allPulls(world, repo)
      .filter((pull) => pull.headRefOid === sha && pull.checks !== null)
      .map((pull) => ({ pull, conclusion: pull.checks ?? 'PENDING', at: pull.updatedAt }));
  }
  const latest = new Map<number, { conclusion: CheckConclusion; at: string }>();
  for (const event of log.eventLog()) {
    if (event.type === 'check_run' && event.repoId === repo.id && event.headOid === sha)
      latest.set(event.number, { conclusion: event.conclusion, at: event.at });
  }
  const checks: RecordedCheck[] = [];
  for (const [number, verdict] of latest) {
    const pull = world.pull(repo, number);
    if (pull) checks.push({ pull, ...verdict });
  }
  return checks.sort((a, b) => Date.parse(b.at) - Date.parse(a.at) || b.pull.number - a.pull.number);
}

/** Commits of `repo` the world knows without git: the default branch's head and its pull requests' commits. */
export function knownCommit(world: WorldReader, repo: SimRepo, ref: string): string | null {
  if (ref === repo.defaultBranch || ref === repo.headOid) return repo.headOid;
  if (!/^[0-9a-f]{40}$/.test(ref)) return null;
  const known = allPulls(world, repo).some(
    (pull) => ref === pull.headRefOid || ref === pull.baseRefOid || ref === pull.mergeCommitOid,
  );
  return known ? ref : null;
}

export class CheckRenderer {
  constructor(
    private readonly world: WorldReader,
    private readonly renderer: RestRenderer,
  ) {}

  private app(): Json {
    const owner = { ...this.renderer.user('github'), type: 'Organization' };
    return {
      ...actionsApp,
      owner,
      html_url: `${this.renderer.web}/apps/${actionsApp.slug}`,
      permissions: { ...actionsApp.permissions },
      events: [...actionsApp.events],
    };
  }

  private minimalPull(repo: SimRepo, pull: SimPull): Json {
    const ref = { id: repo.id, url: this.renderer.repoApi(repo), name: repo.name };
    return {
      id: pullDatabaseId(repo.id, pull.number),
      number: pull.number,
      url: `${this.renderer.repoApi(repo)}/pulls/${pull.number}`,
      head: { ref: pull.headRefName, sha: pull.headRefOid, repo: ref },
      base: { ref: pull.baseRefName, sha: pull.baseRefOid, repo: ref },
    };
  }

  /** `check-run` for a recorded verdict on `sha`. */
  checkRun(repo: SimRepo, sha: string, check: RecordedCheck): Json {
    const { pull } = check;
    const runId = checkRunId(repo.id, pull.number, sha);
    const suiteId = checkSuiteId(repo.id, pull.number, sha);
    const api = this.renderer.repoApi(repo);
    const web = `${this.renderer.web}/${repo.owner}/${repo.name}`;
    const done = check.conclusion !== 'PENDING';
    const conclusion = check.conclusion === 'SUCCESS' ? 'success' : check.conclusion === 'FAILURE' ? 'failure' : null;
    const at = githubTime(check.at);
    // GitHub lists the open pull requests whose head is this commit in this repository: a
    // pull request from a fork is not detected and leaves the list empty.
    const head = pullHead(this.world, repo, pull.number, pull.headRefName);
    const listed = pull.state === 'OPEN' && pull.headRefOid === sha && head.repo?.id === repo.id;
    return {
      id: runId,
      name: checkName,
      node_id: `CR_kwDO${Buffer.from(String(runId)).toString('base64url')}`,
      head_sha: sha,
      external_id: '',
      url: `${api}/check-runs/${runId}`,
      html_url: `${web}/runs/${runId}`,
      details_url: `${web}/actions/runs/${suiteId}/job/${runId}`,
      status: done ? 'completed' : 'in_progress',
      conclusion,
      // The world records when a verdict was given only.
      started_at: at,
      completed_at: done ? at : null,
      output: {
        title: conclusion === null ? null : conclusion === 'success' ? 'Tests passed' : 'Tests failed',
        summary: conclusion === null ? null : conclusion === 'success' ? 'All tests passed.' : 'Some tests failed.',
        text: null,
        annotations_count: 0,
        annotations_url: `${api}/check-runs/${runId}/annotations`,
      },
      check_suite: { id: suiteId },
      app: this.app(),
      pull_requests: listed ? [this.minimalPull(repo, pull)] : [],
    };
  }

  /**
   * `combined-commit-status`. With no context (GitHub Actions CI) there are no statuses and the
   * state is `pending`, as GitHub reports a commit nobody posted a status for.
   */
  combinedStatus(
    repo: SimRepo,
    sha: string,
    checks: readonly RecordedCheck[],
    context: string | null,
    page: { offset: number; limit: number },
  ): Json {
    const api = this.renderer.repoApi(repo);
    const statuses = context === null ? [] : checks.slice(0, 1).map((check) => this.status(repo, sha, check, context));
    const states = statuses.map((status) => status['state']);
    const state = states.includes('failure')
      ? 'failure'
      : states.length > 0 && states.every((s) => s === 'success')
        ? 'success'
        : 'pending';
    return {
      state,
      statuses: statuses.slice(page.offset, page.offset + page.limit),
      sha,
      total_count: statuses.length,
      repository: this.renderer.repository(repo),
      commit_url: `${api}/commits/${sha}`,
      url: `${api}/commits/${sha}/status`,
    };
  }

  private status(repo: SimRepo, sha: string, check: RecordedCheck, context: string): Json {
    const id = commitStatusId(repo.id, check.pull.number, sha);
    const state = check.conclusion === 'SUCCESS' ? 'success' : check.conclusion === 'FAILURE' ? 'failure' : 'pending';
    const at = githubTime(check.at);
    return {
      url: `${this.renderer.repoApi(repo)}/statuses/${sha}`,
      avatar_url: `${this.renderer.api}/avatars/u/${actionsApp.id}?v=4`,
      id,
      node_id: `SC_kwDO${Buffer.from(String(id)).toString('base64url')}`,
      state,
      description:
        state === 'success' ? 'All tests passed.' : state === 'failure' ? 'Some tests failed.' : 'Tests are running.',
      target_url: `${this.renderer.web}/${repo.owner}/${repo.name}/actions/runs/${id}`,
      context,
      created_at: at,
      updated_at: at,
    };
  }
}
