// `POST /repos/{owner}/{repo}/pulls`: the request body checked as GitHub checks it (JSON, then the
// operation's schema, then the pull request's own rules), and the live world's refusals turned
// into GitHub's 422 bodies. Only a world that takes writes opens pull requests; a read-only
// (scale) world answers 403 "Resource not accessible by integration", what GitHub answers a token
// without write access to the repository.
import type { SimPull, SimRepo, WorldReader, WorldWriter } from '../world/model.js';
import { LiveWorldError } from '../world/live/world.js';
import {
  customValidation,
  docs,
  invalidField,
  invalidRequest,
  missingAttribute,
  notAccessible,
  notFound,
  problemsParsingJson,
} from './errors.js';
import { writerOf } from './world-capabilities.js';

export interface CreatePullBody {
  title: string;
  body: string;
  /** As sent: `branch` or `owner:branch`. */
  head: string;
  base: string;
}

const stringFields = ['title', 'body', 'head', 'base', 'head_repo'] as const;
const booleanFields = ['draft', 'maintainer_can_modify'] as const;

/** Reads the body, or throws the 400/422 GitHub sends for it. */
export function readCreatePull(raw: string): CreatePullBody {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw === '' ? '{}' : raw);
  } catch {
    throw problemsParsingJson(docs.createPull);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw invalidRequest(`For 'links/0/schema', ${JSON.stringify(parsed)} is not an object.`, docs.createPull);
  }
  const fields = parsed as Record<string, unknown>;
  const missing = (['head', 'base'] as const).filter((name) => fields[name] === undefined || fields[name] === null);
  if (missing.length > 0) {
    throw invalidRequest(
      `${missing.map((name) => `"${name}"`).join(', ')} ${missing.length === 1 ? "wasn't" : "weren't"} supplied.`,
      docs.createPull,
    );
  }
  for (const name of stringFields) {
    const value = fields[name];
    if (value !== undefined && value !== null && typeof value !== 'string')
      throw invalidRequest(`For 'properties/${name}', ${JSON.stringify(value)} is not a string.`, docs.createPull);
  }
  for (const name of booleanFields) {
    const value = fields[name];
    if (value !== undefined && value !== null && typeof value !== 'boolean')
      throw invalidRequest(`For 'properties/${name}', ${JSON.stringify(value)} is not a boolean.`, docs.createPull);
  }
  if (fields['issue'] !== undefined) {
    // Loudly rather than silently wrong: the world does not turn issues into pull requests.
    throw customValidation(
      'PullRequest',
      'The simulator does not convert issues into pull requests; send a title instead of issue',
      docs.createPull,
    );
  }
  if (fields['draft'] === true) {
    throw customValidation(
      'PullRequest',
      "The simulator's worlds do not model draft pull requests; open it with draft: false",
      docs.createPull,
    );
  }
  const title = typeof fields['title'] === 'string' ? fields['title'] : '';
  const head = fields['head'] as string;
  const headRepo = typeof fields['head_repo'] === 'string' ? fields['head_repo'] : '';
  return {
    title,
    body: typeof fields['body'] === 'string' ? fields['body'] : '',
    // `head_repo` names the head's repository when `head` is a bare branch.
    head: head.includes(':') || headRepo === '' ? head : `${headRepo.split('/')[0] ?? ''}:${head}`,
    base: fields['base'] as string,
  };
}

function headOwner(repo: SimRepo, head: string): string {
  const colon = head.indexOf(':');
  return colon === -1 ? repo.owner : head.slice(0, colon);
}

/**
 * Opens the pull request in the world. REST tokens name no user here; the world lets only a
 * repository's owner write to it, so the author is the owner of the head's repository.
 */
export function createPull(world: WorldReader, repo: SimRepo, input: CreatePullBody): SimPull {
  const writer: (WorldReader & WorldWriter) | null = writerOf(world);
  if (writer === null) throw notAccessible(docs.createPull);
  if (input.title.trim() === '') throw missingAttribute('PullRequest', 'title', docs.createPull);
  const owner = headOwner(repo, input.head);
  const authorLogin = world.userByLogin(owner)?.login ?? owner;
  const branch = input.head.slice(input.head.indexOf(':') + 1);
  try {
    return writer.openPull(repo, {
      title: input.title,
      body: input.body,
      head: input.head,
      base: input.base,
      authorLogin,
    });
  } catch (error) {
    if (!(error instanceof LiveWorldError)) throw error;
    switch (error.code) {
      case 'base-not-found':
        throw invalidField('PullRequest', 'base', docs.createPull);
      case 'head-not-found':
        throw invalidField('PullRequest', 'head', docs.createPull);
      case 'no-commits':
        throw customValidation('PullRequest', `No commits between ${input.base} and ${input.head}`, docs.createPull);
      case 'pull-exists':
        throw customValidation(
          'PullRequest',
          `A pull request already exists for ${authorLogin}:${branch}.`,
          docs.createPull,
        );
      case 'not-found':
        throw notFound(docs.createPull);
      // Not answers to a request: a world that cannot open pull requests at all is a simulator fault.
      case 'bad-option':
      case 'dir-not-empty':
      case 'saved-state-invalid':
      case 'merge-conflict':
      case 'not-open':
        throw error;
    }
  }
}
