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
  | { $case: 'pull'; repo: RepoRef; number: number };

const repoPrefix = /^\/(?:repos\/([^/]+)\/([^/]+)|repositories\/(\d+))(\/.*)?$/;

function decode(segment: string): string | null {
  try {
    return decodeURIComponent(segment);
  } catch {
    return null;
  }
}

export function matchRoute(method: string, path: string): RestRoute | null {
  if (method.toUpperCase() !== 'GET') return null;
  if (path === '/rate_limit') return { $case: 'rate-limit' };
  if (path === '/search/repositories') return { $case: 'search-repos' };
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
  if (rest === '') return { $case: 'repo', repo };
  if (rest === '/issues') return { $case: 'issues', repo };
  if (rest === '/pulls') return { $case: 'pulls', repo };
  const numbered = /^\/(issues|pulls)\/(\d+)(\/comments)?$/.exec(rest);
  if (!numbered) return null;
  const number = Number(numbered[2]);
  if (!Number.isSafeInteger(number)) return null;
  if (numbered[1] === 'issues') return numbered[3] ? { $case: 'issue-comments', repo, number } : { $case: 'issue', repo, number };
  return numbered[3] ? null : { $case: 'pull', repo, number };
}
