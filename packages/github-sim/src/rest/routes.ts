// The REST routes the simulator serves, matched from a method and path. Repositories are named
// by `owner/repo` or, as GitHub's own Link headers name them, by `/repositories/{id}`.

export type RepoRef = { by: 'name'; owner: string; name: string } | { by: 'id'; id: number };

export type RestRoute =
  | { $case: 'rate-limit' }
  | { $case: 'search-repos' }
  | { $case: 'repo'; repo: RepoRef }
  | { $case: 'issues'; repo: RepoRef }
  | { $case: 'issue'; repo: RepoRef; number: number }
  | { $case: 'issue-comments'; repo: RepoRef; number: number }
  | { $case: 'pulls'; repo: RepoRef }
  | { $case: 'create-pull'; repo: RepoRef }
  | { $case: 'pull'; repo: RepoRef; number: number }
  | { $case: 'pull-files'; repo: RepoRef; number: number }
  | { $case: 'check-runs'; repo: RepoRef; ref: string }
  | { $case: 'combined-status'; repo: RepoRef; ref: string }
  | { $case: 'collaborator-permission'; repo: RepoRef; username: string }
  | { $case: 'git-tree'; repo: RepoRef; ref: string };

const repoPrefix = /^\/(?:repos\/([^/]+)\/([^/]+)|repositories\/(\d+))(\/.*)?$/;

function decode(segment: string): string | null {
  try {
    return decodeURIComponent(segment);
  } catch {
    return null;
  }
}

function repoRoute(method: 'GET' | 'POST', repo: RepoRef, rest: string): RestRoute | null {
  if (method === 'POST') return rest === '/pulls' ? { $case: 'create-pull', repo } : null;
  if (rest === '') return { $case: 'repo', repo };
  if (rest === '/issues') return { $case: 'issues', repo };
  if (rest === '/pulls') return { $case: 'pulls', repo };
  // A ref may hold slashes (`feature/x`) when percent-encoded, as Octokit sends it.
  const commit = /^\/commits\/([^/]+)\/(check-runs|status)$/.exec(rest);
  if (commit) {
    const ref = decode(commit[1] ?? '');
    if (ref === null || ref === '') return null;
    return commit[2] === 'status' ? { $case: 'combined-status', repo, ref } : { $case: 'check-runs', repo, ref };
  }
  const tree = /^\/git\/trees\/([^/]+)$/.exec(rest);
  if (tree) {
    const ref = decode(tree[1] ?? '');
    return ref === null || ref === '' ? null : { $case: 'git-tree', repo, ref };
  }
  const permission = /^\/collaborators\/([^/]+)\/permission$/.exec(rest);
  if (permission) {
    const username = decode(permission[1] ?? '');
    return username === null ? null : { $case: 'collaborator-permission', repo, username };
  }
  const numbered = /^\/(issues|pulls)\/(\d+)(\/comments|\/files)?$/.exec(rest);
  if (!numbered) return null;
  const number = Number(numbered[2]);
  if (!Number.isSafeInteger(number)) return null;
  if (numbered[1] === 'issues') {
    if (numbered[3] === '/files') return null;
    return numbered[3] ? { $case: 'issue-comments', repo, number } : { $case: 'issue', repo, number };
  }
  if (numbered[3] === '/comments') return null;
  return numbered[3] ? { $case: 'pull-files', repo, number } : { $case: 'pull', repo, number };
}

export function matchRoute(method: string, path: string): RestRoute | null {
  const verb = method.toUpperCase();
  if (verb !== 'GET' && verb !== 'POST') return null;
  if (verb === 'GET' && path === '/rate_limit') return { $case: 'rate-limit' };
  if (verb === 'GET' && path === '/search/repositories') return { $case: 'search-repos' };
  const match = repoPrefix.exec(path);
  if (!match) return null;
  const [, ownerRaw, nameRaw, idRaw, rest = ''] = match;
  let repo: RepoRef;
  if (idRaw !== undefined) {
    repo = { by: 'id', id: Number(idRaw) };
  } else {
    const owner = decode(ownerRaw ?? '');
    const name = decode(nameRaw ?? '');
    if (owner === null || name === null) return null;
    repo = { by: 'name', owner, name };
  }
  return repoRoute(verb, repo, rest);
}
