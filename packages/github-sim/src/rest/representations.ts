// The world's records rendered as GitHub's REST JSON: field names, types, nullability and the
// hypermedia urls (built from the simulator's base URL) of repository, search item, simple user,
// label, issue, issue comment, simple and full pull request, a pull request's changed files, and
// a user's permission on a repository.
import type { SimContext } from '../http/exchange.js';
import type { SimComment, SimIssue, SimLabel, SimPull, SimRepo } from '../world/model.js';
import type { DiffFile } from './pull-diff.js';
import { detectedLicense } from '../world/licenses.js';
import { encodeNodeId, syntheticNodeId } from '../world/node-id.js';
import { hashString } from '../world/random.js';
import { pullHead } from './world-capabilities.js';

type Json = Record<string, unknown>;

/** GitHub serves timestamps to the second: `2024-05-01T12:00:00Z`. */
export function githubTime(iso: string): string;
export function githubTime(iso: string | null): string | null;
export function githubTime(iso: string | null): string | null {
  if (iso === null) return null;
  return new Date(iso).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

// GitHub's ids are database ids; the world has none for issues and pulls, so derive disjoint ones.
export function issueDatabaseId(repoId: number, number: number): number {
  return repoId * 10_000_000 + number;
}
export function pullDatabaseId(repoId: number, number: number): number {
  return 4_000_000_000_000_000 + repoId * 10_000_000 + number;
}

const defaultLabels = new Set([
  'bug',
  'documentation',
  'duplicate',
  'enhancement',
  'good first issue',
  'help wanted',
  'invalid',
  'question',
  'wontfix',
]);

export class RestRenderer {
  readonly api: string;
  /** Web pages and clone urls; the simulator serves them from the same origin as the API. */
  readonly web: string;
  private readonly host: string;

  constructor(
    private readonly ctx: SimContext,
    private readonly authenticated: boolean,
  ) {
    this.api = ctx.baseUrl.replace(/\/+$/, '');
    this.web = this.api;
    this.host = new URL(this.api).host;
  }

  repoApi(repo: SimRepo): string {
    return `${this.api}/repos/${repo.owner}/${repo.name}`;
  }

  /** GitHub's Link headers name repositories by id. */
  repoCanonical(repo: SimRepo): string {
    return `${this.api}/repositories/${repo.id}`;
  }

  user(login: string): Json {
    const known = this.ctx.world.userByLogin(login);
    const id = known?.id ?? hashString(login.toLowerCase()) % 200_000_000;
    const userLogin = known?.login ?? login;
    const type = known?.type ?? 'User';
    // Bot logins carry brackets (`dependabot[bot]`), which GitHub percent-encodes in urls.
    const url = `${this.api}/users/${encodeURIComponent(userLogin)}`;
    return {
      login: userLogin,
      id,
      node_id: encodeNodeId({ type: 'User', userId: id }),
      avatar_url: `${this.api}/avatars/u/${id}?v=4`,
      gravatar_id: '',
      url,
      html_url:
        type === 'Bot'
          ? `${this.web}/apps/${encodeURIComponent(userLogin.replace(/\[bot\]$/, ''))}`
          : `${this.web}/${encodeURIComponent(userLogin)}`,
      followers_url: `${url}/followers`,
      following_url: `${url}/following{/other_user}`,
      gists_url: `${url}/gists{/gist_id}`,
      starred_url: `${url}/starred{/owner}{/repo}`,
      subscriptions_url: `${url}/subscriptions`,
      organizations_url: `${url}/orgs`,
      repos_url: `${url}/repos`,
      events_url: `${url}/events{/privacy}`,
      received_events_url: `${url}/received_events`,
      type,
      user_view_type: 'public',
      site_admin: false,
    };
  }

  license(repo: SimRepo): Json | null {
    if (repo.licenseSpdxId === null) return null;
    const { key, name, spdxId, pseudo } = detectedLicense(repo.licenseSpdxId);
    if (pseudo) return { key, name, spdx_id: spdxId, url: null, node_id: 'MDc6TGljZW5zZTA=' };
    return {
      key,
      name,
      spdx_id: spdxId,
      url: `${this.api}/licenses/${key}`,
      node_id: Buffer.from(`07:License${hashString(key) % 1000}`).toString('base64'),
    };
  }

  /** The fields every repository representation shares (GitHub's `repository` schema). */
  repository(repo: SimRepo): Json {
    const api = this.repoApi(repo);
    const html = `${this.web}/${repo.owner}/${repo.name}`;
    // GitHub's open_issues_count counts open pull requests too; the world counts issues only.
    const openPulls = this.ctx.world.pulls(repo, { states: ['OPEN'] }, 0, 0).total;
    const openIssues = repo.openIssueCount + openPulls;
    const sizeKb = Math.ceil(repo.files.reduce((sum, file) => sum + Buffer.byteLength(file.content), 0) / 1024);
    return {
      id: repo.id,
      node_id: encodeNodeId({ type: 'Repository', repoId: repo.id }),
      name: repo.name,
      full_name: `${repo.owner}/${repo.name}`,
      private: false,
      owner: this.user(repo.owner),
      html_url: html,
      description: repo.description,
      fork: repo.isFork,
      url: api,
      forks_url: `${api}/forks`,
      keys_url: `${api}/keys{/key_id}`,
      collaborators_url: `${api}/collaborators{/collaborator}`,
      teams_url: `${api}/teams`,
      hooks_url: `${api}/hooks`,
      issue_events_url: `${api}/issues/events{/number}`,
      events_url: `${api}/events`,
      assignees_url: `${api}/assignees{/user}`,
      branches_url: `${api}/branches{/branch}`,
      tags_url: `${api}/tags`,
      blobs_url: `${api}/git/blobs{/sha}`,
      git_tags_url: `${api}/git/tags{/sha}`,
      git_refs_url: `${api}/git/refs{/sha}`,
      trees_url: `${api}/git/trees{/sha}`,
      statuses_url: `${api}/statuses/{sha}`,
      languages_url: `${api}/languages`,
      stargazers_url: `${api}/stargazers`,
      contributors_url: `${api}/contributors`,
      subscribers_url: `${api}/subscribers`,
      subscription_url: `${api}/subscription`,
      commits_url: `${api}/commits{/sha}`,
      git_commits_url: `${api}/git/commits{/sha}`,
      comments_url: `${api}/comments{/number}`,
      issue_comment_url: `${api}/issues/comments{/number}`,
      contents_url: `${api}/contents/{+path}`,
      compare_url: `${api}/compare/{base}...{head}`,
      merges_url: `${api}/merges`,
      archive_url: `${api}/{archive_format}{/ref}`,
      downloads_url: `${api}/downloads`,
      issues_url: `${api}/issues{/number}`,
      pulls_url: `${api}/pulls{/number}`,
      milestones_url: `${api}/milestones{/number}`,
      notifications_url: `${api}/notifications{?since,all,participating}`,
      labels_url: `${api}/labels{/name}`,
      releases_url: `${api}/releases{/id}`,
      deployments_url: `${api}/deployments`,
      created_at: githubTime(repo.createdAt),
      updated_at: githubTime(repo.updatedAt),
      pushed_at: githubTime(repo.pushedAt),
      git_url: `git://${this.host}/${repo.owner}/${repo.name}.git`,
      ssh_url: `git@${this.host}:${repo.owner}/${repo.name}.git`,
      clone_url: `${html}.git`,
      svn_url: html,
      homepage: null,
      size: sizeKb,
      stargazers_count: repo.stargazerCount,
      watchers_count: repo.stargazerCount,
      language: repo.primaryLanguage,
      has_issues: true,
      has_projects: true,
      has_downloads: true,
      has_wiki: true,
      has_pages: false,
      has_discussions: false,
      forks_count: repo.forkCount,
      mirror_url: repo.mirrorUrl,
      archived: repo.isArchived,
      disabled: false,
      open_issues_count: openIssues,
      license: this.license(repo),
      allow_forking: true,
      is_template: false,
      web_commit_signoff_required: false,
      topics: [],
      visibility: 'public',
      forks: repo.forkCount,
      open_issues: openIssues,
      watchers: repo.stargazerCount,
      default_branch: repo.defaultBranch,
    };
  }

  /** `GET /repos/{owner}/{repo}`: GitHub's `full-repository`. */
  fullRepository(repo: SimRepo): Json {
    const out: Json = { ...this.repository(repo) };
    // GitHub adds the caller's permissions only for an authenticated caller.
    if (this.authenticated)
      out['permissions'] = { admin: false, maintain: false, push: false, triage: false, pull: true };
    out['network_count'] = repo.forkCount;
    out['subscribers_count'] = 0;
    return out;
  }

  searchItem(repo: SimRepo): Json {
    return { ...this.repository(repo), score: 1 };
  }

  label(repo: SimRepo, name: string): Json {
    const label: SimLabel = repo.labels.find((l) => l.name === name) ?? { name, color: 'ededed', description: null };
    return {
      id: hashString(`${repo.id}:${label.name}`),
      node_id: syntheticNodeId('LA', `${repo.id}:${label.name}`),
      url: `${this.repoApi(repo)}/labels/${encodeURIComponent(label.name)}`,
      name: label.name,
      color: label.color,
      default: defaultLabels.has(label.name),
      description: label.description,
    };
  }

  private authorAssociation(repo: SimRepo, login: string): string {
    if (login.toLowerCase() === repo.owner.toLowerCase()) return 'OWNER';
    if (this.ctx.world.userByLogin(login)?.maintainerOf.includes(repo.id)) return 'COLLABORATOR';
    return 'NONE';
  }

  /**
   * `GET /repos/{owner}/{repo}/collaborators/{username}/permission`: the owner administers, the
   * repository's maintainers write, every other user reads (the repositories are public).
   */
  collaboratorPermission(repo: SimRepo, login: string): Json {
    const association = this.authorAssociation(repo, login);
    const role = association === 'OWNER' ? 'admin' : association === 'COLLABORATOR' ? 'write' : 'read';
    const writes = role !== 'read';
    return {
      permission: role,
      role_name: role,
      user: {
        ...this.user(login),
        permissions: { admin: role === 'admin', maintain: role === 'admin', push: writes, triage: writes, pull: true },
        role_name: role,
      },
    };
  }

  private reactions(url: string): Json {
    return {
      url: `${url}/reactions`,
      total_count: 0,
      '+1': 0,
      '-1': 0,
      laugh: 0,
      hooray: 0,
      confused: 0,
      heart: 0,
      rocket: 0,
      eyes: 0,
    };
  }

  private issueCommon(repo: SimRepo, number: number): { url: string; html: string; base: Json } {
    const url = `${this.repoApi(repo)}/issues/${number}`;
    const html = `${this.web}/${repo.owner}/${repo.name}/issues/${number}`;
    return {
      url,
      html,
      base: {
        url,
        repository_url: this.repoApi(repo),
        labels_url: `${url}/labels{/name}`,
        comments_url: `${url}/comments`,
        events_url: `${url}/events`,
        html_url: html,
      },
    };
  }

  /** An issue as REST lists and gets it (`issue`); `single` adds what only the single GET carries. */
  issue(repo: SimRepo, issue: SimIssue, single: boolean): Json {
    const { url, base } = this.issueCommon(repo, issue.number);
    const out: Json = {
      ...base,
      id: issueDatabaseId(repo.id, issue.number),
      node_id: encodeNodeId({ type: 'Issue', repoId: repo.id, number: issue.number }),
      number: issue.number,
      title: issue.title,
      user: this.user(issue.authorLogin),
      labels: issue.labels.map((name) => this.label(repo, name)),
      state: issue.state === 'OPEN' ? 'open' : 'closed',
      locked: false,
      assignee: null,
      assignees: [],
      milestone: null,
      comments: issue.commentCount,
      created_at: githubTime(issue.createdAt),
      updated_at: githubTime(issue.updatedAt),
      closed_at: githubTime(issue.closedAt),
      author_association: this.authorAssociation(repo, issue.authorLogin),
      type: null,
      active_lock_reason: null,
      sub_issues_summary: { total: 0, completed: 0, percent_completed: 0 },
      body: issue.body,
      reactions: this.reactions(url),
      timeline_url: `${url}/timeline`,
      performed_via_github_app: null,
      state_reason: issue.stateReason === null ? null : issue.stateReason.toLowerCase(),
    };
    // The world does not record who closed an issue.
    if (single) out['closed_by'] = null;
    return out;
  }

  /** A pull request as the issues API shows it: an issue with a `pull_request` key. */
  pullAsIssue(repo: SimRepo, pull: SimPull, commentCount: number, single: boolean): Json {
    const { url, base } = this.issueCommon(repo, pull.number);
    const pullHtml = `${this.web}/${repo.owner}/${repo.name}/pull/${pull.number}`;
    const out: Json = {
      ...base,
      id: issueDatabaseId(repo.id, pull.number),
      node_id: encodeNodeId({ type: 'PullRequest', repoId: repo.id, number: pull.number }),
      number: pull.number,
      title: pull.title,
      user: this.user(pull.authorLogin),
      labels: [],
      state: pull.state === 'OPEN' ? 'open' : 'closed',
      locked: false,
      assignee: null,
      assignees: [],
      milestone: null,
      comments: commentCount,
      created_at: githubTime(pull.createdAt),
      updated_at: githubTime(pull.updatedAt),
      closed_at: githubTime(pull.closedAt),
      author_association: this.authorAssociation(repo, pull.authorLogin),
      type: null,
      active_lock_reason: null,
      draft: false,
      pull_request: {
        url: `${this.repoApi(repo)}/pulls/${pull.number}`,
        html_url: pullHtml,
        diff_url: `${pullHtml}.diff`,
        patch_url: `${pullHtml}.patch`,
        merged_at: githubTime(pull.mergedAt),
      },
      body: pull.body,
      reactions: this.reactions(url),
      timeline_url: `${url}/timeline`,
      performed_via_github_app: null,
      state_reason: null,
    };
    if (single) out['closed_by'] = pull.mergedByLogin === null ? null : this.user(pull.mergedByLogin);
    return out;
  }

  comment(repo: SimRepo, comment: SimComment): Json {
    const url = `${this.repoApi(repo)}/issues/comments/${comment.id}`;
    return {
      url,
      html_url: `${this.web}/${repo.owner}/${repo.name}/issues/${comment.issueNumber}#issuecomment-${comment.id}`,
      issue_url: `${this.repoApi(repo)}/issues/${comment.issueNumber}`,
      id: comment.id,
      node_id: syntheticNodeId('IC', String(comment.id)),
      user: this.user(comment.authorLogin),
      created_at: githubTime(comment.createdAt),
      updated_at: githubTime(comment.updatedAt),
      author_association: this.authorAssociation(repo, comment.authorLogin),
      body: comment.body,
      reactions: this.reactions(url),
      performed_via_github_app: null,
    };
  }

  private branch(repo: SimRepo, ref: string, sha: string): Json {
    return { label: `${repo.owner}:${ref}`, ref, sha, user: this.user(repo.owner), repo: this.repository(repo) };
  }

  /** `head`: the fork the branch lives in when the world knows one (live worlds), else the repository itself. */
  private headBranch(repo: SimRepo, pull: SimPull): Json {
    const head = pullHead(this.ctx.world, repo, pull.number, pull.headRefName);
    if (head.repo !== null) return this.branch(head.repo, pull.headRefName, pull.headRefOid);
    // A head repository that is gone (a deleted fork) is `repo: null` on GitHub, labelled with the author.
    return {
      label: `${pull.authorLogin}:${pull.headRefName}`,
      ref: pull.headRefName,
      sha: pull.headRefOid,
      user: this.user(pull.authorLogin),
      repo: null,
    };
  }

  /** `GET /repos/{owner}/{repo}/pulls` items: GitHub's `pull-request-simple`. */
  pullSimple(repo: SimRepo, pull: SimPull): Json {
    const api = `${this.repoApi(repo)}/pulls/${pull.number}`;
    const issueApi = `${this.repoApi(repo)}/issues/${pull.number}`;
    const html = `${this.web}/${repo.owner}/${repo.name}/pull/${pull.number}`;
    const statuses = `${this.repoApi(repo)}/statuses/${pull.headRefOid}`;
    return {
      url: api,
      id: pullDatabaseId(repo.id, pull.number),
      node_id: encodeNodeId({ type: 'PullRequest', repoId: repo.id, number: pull.number }),
      html_url: html,
      diff_url: `${html}.diff`,
      patch_url: `${html}.patch`,
      issue_url: issueApi,
      number: pull.number,
      state: pull.state === 'OPEN' ? 'open' : 'closed',
      locked: false,
      title: pull.title,
      user: this.user(pull.authorLogin),
      body: pull.body,
      created_at: githubTime(pull.createdAt),
      updated_at: githubTime(pull.updatedAt),
      closed_at: githubTime(pull.closedAt),
      merged_at: githubTime(pull.mergedAt),
      merge_commit_sha: pull.mergeCommitOid,
      assignee: null,
      assignees: [],
      requested_reviewers: [],
      requested_teams: [],
      labels: [],
      milestone: null,
      draft: false,
      commits_url: `${api}/commits`,
      review_comments_url: `${api}/comments`,
      review_comment_url: `${this.repoApi(repo)}/pulls/comments{/number}`,
      comments_url: `${issueApi}/comments`,
      statuses_url: statuses,
      head: this.headBranch(repo, pull),
      base: this.branch(repo, pull.baseRefName, pull.baseRefOid),
      _links: {
        self: { href: api },
        html: { href: html },
        issue: { href: issueApi },
        comments: { href: `${issueApi}/comments` },
        review_comments: { href: `${api}/comments` },
        review_comment: { href: `${this.repoApi(repo)}/pulls/comments{/number}` },
        commits: { href: `${api}/commits` },
        statuses: { href: statuses },
      },
      author_association: this.authorAssociation(repo, pull.authorLogin),
      auto_merge: null,
      active_lock_reason: null,
    };
  }

  /** `GET /repos/{owner}/{repo}/pulls/{number}`: GitHub's `pull-request`. */
  pull(repo: SimRepo, pull: SimPull, commentCount: number): Json {
    const open = pull.state === 'OPEN';
    // GitHub computes mergeability lazily; for an open pull request the world's check rollup decides it.
    const mergeableState = !open
      ? 'unknown'
      : pull.checks === 'FAILURE' || pull.checks === 'PENDING'
        ? 'unstable'
        : 'clean';
    return {
      ...this.pullSimple(repo, pull),
      merged: pull.state === 'MERGED',
      mergeable: open ? true : null,
      rebaseable: open ? true : null,
      mergeable_state: mergeableState,
      merged_by: pull.mergedByLogin === null ? null : this.user(pull.mergedByLogin),
      comments: commentCount,
      review_comments: 0,
      maintainer_can_modify: false,
      commits: 1,
      additions: pull.additions,
      deletions: pull.deletions,
      changed_files: pull.changedFiles,
    };
  }

  /** One changed file of a pull request (`diff-entry`); urls name the base repository at the head commit. */
  diffEntry(repo: SimRepo, pull: SimPull, file: DiffFile): Json {
    // A removed file is only at the base; GitHub's urls for it point there.
    const at = file.status === 'removed' ? pull.baseRefOid : pull.headRefOid;
    const path = file.filename.split('/').map(encodeURIComponent).join('/');
    const out: Json = {
      sha: file.blob,
      filename: file.filename,
      status: file.status,
      additions: file.additions,
      deletions: file.deletions,
      changes: file.additions + file.deletions,
      blob_url: `${this.web}/${repo.owner}/${repo.name}/blob/${at}/${path}`,
      raw_url: `${this.web}/${repo.owner}/${repo.name}/raw/${at}/${path}`,
      contents_url: `${this.repoApi(repo)}/contents/${path}?ref=${at}`,
    };
    if (file.patch !== null) out['patch'] = file.patch;
    if (file.previousFilename !== null) out['previous_filename'] = file.previousFilename;
    return out;
  }
}
