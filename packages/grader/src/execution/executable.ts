// Owns finding the program a command names, the way execvp would, so a sandboxed command whose
// binary is missing is reported as "could not be invoked" instead of as bwrap failing.

import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { delimiter, resolve } from 'node:path';

export type ExecutableLookup = { found: string } | { code: 'ENOENT' | 'EACCES'; message: string };

export async function resolveExecutable(
  program: string,
  pathVariable: string | undefined,
  cwd: string,
): Promise<ExecutableLookup> {
  // A name with a slash is a path (relative to cwd); a bare name is searched along PATH.
  const candidates = program.includes('/')
    ? [resolve(cwd, program)]
    : (pathVariable ?? '').split(delimiter).map((folder) => resolve(cwd, folder, program));
  let sawNonExecutable = false;
  for (const candidate of candidates) {
    const kind = await fileKind(candidate);
    if (kind === 'executable') return { found: candidate };
    if (kind === 'not-executable') sawNonExecutable = true;
  }
  if (sawNonExecutable) return { code: 'EACCES', message: `${program} exists but is not an executable file` };
  const where = program.includes('/') ? `at ${candidates[0] ?? program}` : `on PATH (${pathVariable ?? 'unset'})`;
  return { code: 'ENOENT', message: `${program} was not found ${where}` };
}

async function fileKind(path: string): Promise<'executable' | 'not-executable' | 'absent'> {
  try {
    const info = await stat(path);
    if (!info.isFile()) return 'not-executable';
    await access(path, constants.X_OK);
    return 'executable';
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EACCES' ? 'not-executable' : 'absent';
  }
}
