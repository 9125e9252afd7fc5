// World events rendered as GitHub webhook payloads: `pull_request`, `check_run`, `check_suite` and
// `issues`, with the same repository, user, issue and pull request representations as the REST
// layer (GitHub's webhook schemas extend those), urls from the simulator's base URL. A payload is
// built when its event happens, so it shows the world as it was then, not when it is sent.
import { RateLimits } from '../http/rate-limits.js';
import { actionsApp, checkRunId, checkSuiteId, ciBotLogin, oidWord } from '../rest/github-actions.js';
import { RestRenderer, githubTime, pullDatabaseId } from '../rest/representations.js';
import type { SimPull, SimRepo, WorldEvent, WorldReader } from '../world/model.js';
import { hash3, objectId } from '../world/random.js';
import { WebhookError } from './errors.js';

type Json = Record<string, unknown>;

export const webhookEventNames = ['pull_request', 'check_run', 'check_suite', 'issues'] as const;
export type WebhookEventName = (typeof webhookEventNames)[number];

/** One delivery's content: the X-GitHub-Event name, the payload's action and the payload. */
export interface WebhookMessage {
  event: WebhookEventName;
  action: string;
  repoId: number;
  /** `owner/name`, for the delivery log. */
  repository: string;
  payload: Json;
}

export class WebhookPayloadBuilder {
  private readonly renderer: RestRenderer;
  /** The head each pull request had at its last event: `before` of the next `synchronize`. */
  private readonly lastHeads = new Map<string, string>();

  constructor(
    private readonly world: WorldReader,
    baseUrl: string,
  ) {
    // The renderer reads only the world and base URL; the rate limits are never spent here.
    this.renderer = new RestRenderer({ world, baseUrl, rateLimits: new RateLimits(), now: Date.now }, false);
  }

  /**
   * The deliveries one world event causes, in order: one for most events, `check_run` then
   * `check_suite` for a finished check (the simulator's CI runs one check per suite), none for a
   * check still pending (GitHub sends `completed` only with a conclusion).
   */
  build(event: WorldEvent): WebhookMessage[] {
    const repo = this.world.repoById(event.repoId);
    if (!repo)
      throw new WebhookError(
        'unknown-record',
        `The world has no repository ${event.repoId} (${event.type}.${event.action})`,
      );
    switch (event.type) {
      case 'pull_request':
        return [this.pullRequest(repo, event)];
      case 'check_run':
        return this.checks(repo, event);
      case 'issues':
        return [this.issues(repo, event)];
    }
  }

  private message(repo: SimRepo, event: WebhookEventName, action: string, payload: Json): WebhookMessage {
    return { event, action, repoId: repo.id, repository: `${repo.owner}/${repo.name}`, payload };
  }

  private pullOf(repo: SimRepo, number: number, event: WorldEvent): SimPull {
    const pull = this.world.pull(repo, number);
    if (!pull)
      throw new WebhookError(
        'unknown-record',
        `${repo.owner}/${repo.name} has no pull request #${number} (${event.type}.${event.action})`,
      );
    return pull;
  }

  /** GitHub's `repository-webhooks`: the REST repository plus the settings webhooks carry. */
  private repository(repo: SimRepo): Json {
    return {
      ...this.renderer.repository(repo),
      custom_properties: {},
      allow_squash_merge: true,
      allow_merge_commit: true,
      allow_rebase_merge: true,
      allow_auto_merge: false,
      delete_branch_on_merge: false,
      allow_update_branch: false,
      use_squash_pr_title_as_default: false,
      squash_merge_commit_title: 'COMMIT_OR_PR_TITLE',
      squash_merge_commit_message: 'COMMIT_MESSAGES',
      merge_commit_title: 'MERGE_MESSAGE',
      merge_commit_message: 'PR_TITLE',
    };
  }

  private user(login: string): Json {
    const user = this.renderer.user(login);
    // The renderer knows only the world's users; a bot outside it still carries GitHub's Bot type.
    return login.endsWith('[bot]') ? { ...user, type: 'Bot' } : user;
  }

  private pullRequest(repo: SimRepo, event: Extract<WorldEvent, { type: 'pull_request' }>): WebhookMessage {
    const pull = this.pullOf(repo, event.number, event);
    const key = `${repo.id}:${pull.number}`;
    const before = this.lastHeads.get(key);
    this.lastHeads.set(key, pull.headRefOid);
    const commentCount = this.world.comments(repo, pull.number, 0, 0).total;
    const pullRequest = {
      ...this.renderer.pull(repo, pull, commentCount),
      allow_auto_merge: false,
      allow_update_branch: false,
      delete_branch_on_merge: false,
      use_squash_pr_title_as_default: false,
      merge_commit_title: 'MERGE_MESSAGE',
      merge_commit_message: 'PR_TITLE',
      squash_merge_commit_title: 'COMMIT_OR_PR_TITLE',
      squash_merge_commit_message: 'COMMIT_MESSAGES',
    };
    // The world does not record who closed an unmerged pull request: the repository owner, a maintainer, did.
    const senderLogin = event.action === 'closed' ? (pull.mergedByLogin ?? repo.owner) : pull.authorLogin;
    const payload: Json = { action: event.action, number: pull.number };
    if (event.action === 'synchronize') {
      // WorldEvent carries no previous head: the head seen at this pull request's last event is it.
      payload['before'] = before ?? pull.baseRefOid;
      payload['after'] = pull.headRefOid;
    }
    payload['pull_request'] = pullRequest;
    payload['repository'] = this.repository(repo);
    payload['sender'] = this.user(senderLogin);
    return this.message(repo, 'pull_request', event.action, payload);
  }

  private pullRequestMinimal(repo: SimRepo, pull: SimPull): Json {
    const repoRef = { id: repo.id, url: this.renderer.repoApi(repo), name: repo.name };
    return {
      id: pullDatabaseId(repo.id, pull.number),
      number: pull.number,
      url: `${this.renderer.repoApi(repo)}/pulls/${pull.number}`,
      head: { ref: pull.headRefName, sha: pull.headRefOid, repo: repoRef },
      base: { ref: pull.baseRefName, sha: pull.baseRefOid, repo: repoRef },
    };
  }

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

  private checks(repo: SimRepo, event: Extract<WorldEvent, { type: 'check_run' }>): WebhookMessage[] {
    if (event.conclusion === 'PENDING') return [];
    const pull = this.pullOf(repo, event.number, event);
    const conclusion = event.conclusion === 'SUCCESS' ? 'success' : 'failure';
    const at = githubTime(event.at);
    const api = this.renderer.repoApi(repo);
    const web = `${this.renderer.web}/${repo.owner}/${repo.name}`;
    const runId = checkRunId(repo.id, pull.number, event.headOid);
    const suiteId = checkSuiteId(repo.id, pull.number, event.headOid);
    // GitHub lists the pull requests whose head is the checked commit; an outdated head lists none.
    const pullRequests = pull.headRefOid === event.headOid ? [this.pullRequestMinimal(repo, pull)] : [];
    const app = this.app();
    const suiteCommon = {
      id: suiteId,
      node_id: `CS_kwDO${Buffer.from(String(suiteId)).toString('base64url')}`,
      head_branch: pull.headRefName,
      head_sha: event.headOid,
      status: 'completed',
      conclusion,
      url: `${api}/check-suites/${suiteId}`,
      // The previous head of the branch is not part of a check event in the world.
      before: null,
      after: event.headOid,
      pull_requests: pullRequests,
      app,
      created_at: at,
      updated_at: at,
    };
    const checkRun: Json = {
      id: runId,
      name: 'test',
      node_id: `CR_kwDO${Buffer.from(String(runId)).toString('base64url')}`,
      head_sha: event.headOid,
      external_id: '',
      url: `${api}/check-runs/${runId}`,
      html_url: `${web}/runs/${runId}`,
      details_url: `${web}/actions/runs/${suiteId}/job/${runId}`,
      status: 'completed',
      conclusion,
      // The world records when the check finished only.
      started_at: at,
      completed_at: at,
      output: {
        title: conclusion === 'success' ? 'Tests passed' : 'Tests failed',
        summary: conclusion === 'success' ? 'All tests passed.' : 'Some tests failed.',
        text: null,
        annotations_count: 0,
        annotations_url: `${api}/check-runs/${runId}/annotations`,
      },
      check_suite: { ...suiteCommon, repository: this.repository(repo) },
      app,
      pull_requests: pullRequests,
    };
    const authorEmail = `${hash3(repo.id, pull.number, 0) % 100_000_000}+${pull.authorLogin}@users.noreply.github.com`;
    const checkSuite: Json = {
      ...suiteCommon,
      latest_check_runs_count: 1,
      check_runs_url: `${api}/check-suites/${suiteId}/check-runs`,
      rerequestable: true,
      runs_rerequestable: true,
      head_commit: {
        id: event.headOid,
        tree_id: objectId(repo.id, pull.number, oidWord(event.headOid), 0x7472_6565),
        message: pull.title,
        timestamp: githubTime(pull.updatedAt),
        author: { name: pull.authorLogin, email: authorEmail },
        committer: { name: pull.authorLogin, email: authorEmail },
      },
    };
    const repository = this.repository(repo);
    const sender = this.user(ciBotLogin);
    return [
      this.message(repo, 'check_run', 'completed', { action: 'completed', check_run: checkRun, repository, sender }),
      this.message(repo, 'check_suite', 'completed', {
        action: 'completed',
        check_suite: checkSuite,
        repository,
        sender,
      }),
    ];
  }

  private issues(repo: SimRepo, event: Extract<WorldEvent, { type: 'issues' }>): WebhookMessage {
    const issue = this.world.issue(repo, event.number);
    if (!issue)
      throw new WebhookError(
        'unknown-record',
        `${repo.owner}/${repo.name} has no issue #${event.number} (issues.${event.action})`,
      );
    // The world does not record who closed or reopened an issue; the simulator's actor for it is the author.
    return this.message(repo, 'issues', event.action, {
      action: event.action,
      issue: this.renderer.issue(repo, issue, true),
      repository: this.repository(repo),
      sender: this.user(issue.authorLogin),
    });
  }
}
