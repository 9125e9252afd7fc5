// A real git repository in a temp dir: commit a base, change files as an agent would, and take
// the patch exactly as the grader does (PATCH_GIT_ARGS), plus each file's before and after bytes.
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { PATCH_GIT_ARGS } from '../../../src/diff/patch.js';

const execFileAsync = promisify(execFile);

export type FileTree = Record<string, string | Buffer>;

export class TempRepo {
  private constructor(readonly dir: string) {}

  static async create(files: FileTree = {}): Promise<TempRepo> {
    const repo = new TempRepo(await mkdtemp(path.join(os.tmpdir(), 'abp-diff-')));
    await repo.git('init', '-q', '-b', 'main');
    await repo.git('config', 'user.email', 'grader@example.com');
    await repo.git('config', 'user.name', 'Grader Test');
    await repo.write(files);
    return repo;
  }

  async git(...args: string[]): Promise<string> {
    const { stdout } = await execFileAsync('git', args, { cwd: this.dir, maxBuffer: 64 * 1024 * 1024 });
    return stdout;
  }

  async write(files: FileTree): Promise<void> {
    for (const [name, content] of Object.entries(files)) {
      const file = path.join(this.dir, name);
      await mkdir(path.dirname(file), { recursive: true });
      await writeFile(file, content);
    }
  }

  async remove(...names: string[]): Promise<void> {
    for (const name of names) await rm(path.join(this.dir, name));
  }

  async move(from: string, to: string): Promise<void> {
    await mkdir(path.dirname(path.join(this.dir, to)), { recursive: true });
    await rename(path.join(this.dir, from), path.join(this.dir, to));
  }

  /** Commits everything and returns the commit id. */
  async commit(message = 'base'): Promise<string> {
    await this.git('add', '-A');
    await this.git('commit', '-q', '--allow-empty', '-m', message);
    return (await this.git('rev-parse', 'HEAD')).trim();
  }

  /** The patch from `base` to the working tree, new files included, as the grader takes it. */
  async patch(base: string): Promise<string> {
    await this.git('add', '-A');
    return this.git(...PATCH_GIT_ARGS, base);
  }

  async before(base: string, name: string): Promise<Buffer | null> {
    try {
      const { stdout } = await execFileAsync('git', ['cat-file', 'blob', `${base}:${name}`], {
        cwd: this.dir,
        encoding: 'buffer',
        maxBuffer: 64 * 1024 * 1024,
      });
      return stdout;
    } catch {
      return null;
    }
  }

  async after(name: string): Promise<Buffer | null> {
    return readFile(path.join(this.dir, name)).catch(() => null);
  }

  async dispose(): Promise<void> {
    await rm(this.dir, { recursive: true, force: true });
  }
}
