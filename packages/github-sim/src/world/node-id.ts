// Global node ids, opaque to clients as GitHub's are: a type prefix in GitHub's style (R_, I_, PR_,
// U_) and a base64url body naming the record, so `nodes(ids:)` can resolve any id it handed out.

export type NodeRef =
  | { type: 'Repository'; repoId: number }
  | { type: 'Issue'; repoId: number; number: number }
  | { type: 'PullRequest'; repoId: number; number: number }
  | { type: 'User'; userId: number };

const prefixes = { Repository: 'R_', Issue: 'I_', PullRequest: 'PR_', User: 'U_' } as const;

function body(ref: NodeRef): string {
  switch (ref.type) {
    case 'Repository':
      return `${ref.repoId}`;
    case 'Issue':
    case 'PullRequest':
      return `${ref.repoId}:${ref.number}`;
    case 'User':
      return `${ref.userId}`;
  }
}

export function encodeNodeId(ref: NodeRef): string {
  return `${prefixes[ref.type]}kgDO${Buffer.from(body(ref)).toString('base64url')}`;
}

/** The record an id names, or null for an id this simulator did not hand out (GitHub answers NOT_FOUND). */
export function decodeNodeId(id: string): NodeRef | null {
  const match = /^(R|I|PR|U)_kgDO([A-Za-z0-9_-]+)$/.exec(id);
  if (!match) return null;
  const parts = Buffer.from(match[2] ?? '', 'base64url')
    .toString('utf8')
    .split(':')
    .map(Number);
  if (parts.some((part) => !Number.isSafeInteger(part) || part < 0)) return null;
  const [first, second] = parts;
  if (first === undefined) return null;
  // The pattern admits exactly these four prefixes.
  const prefix = match[1] as 'R' | 'I' | 'PR' | 'U';
  switch (prefix) {
    case 'R':
      return parts.length === 1 ? { type: 'Repository', repoId: first } : null;
    case 'U':
      return parts.length === 1 ? { type: 'User', userId: first } : null;
    case 'I':
      return parts.length === 2 && second !== undefined ? { type: 'Issue', repoId: first, number: second } : null;
    case 'PR':
      return parts.length === 2 && second !== undefined ? { type: 'PullRequest', repoId: first, number: second } : null;
  }
}

/**
 * An id in GitHub's style for objects `NodeRef` does not name (labels, comments, refs, commits,
 * licenses): stable, but `node(id:)` and `nodes(ids:)` do not resolve it.
 */
export function syntheticNodeId(prefix: string, body: string): string {
  return `${prefix}_kwDO${Buffer.from(body).toString('base64url')}`;
}
