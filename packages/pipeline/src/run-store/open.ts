// Which run store a process uses, from ABP_RUN_STORE: an S3-compatible bucket, a folder every worker mounts, or by
// default the data directory's own folder (enough while the workers run on the machine that starts the run).
import { join, resolve } from 'node:path';
import { StackError } from '../worker/errors.js';
import { FolderRunStore, type RunStore } from './store.js';

type Env = Readonly<Record<string, string | undefined>>;

/**
 * The run store ABP_RUN_STORE names: `s3://bucket[/prefix]` (with AWS_ENDPOINT_URL for a bucket not on AWS, and the
 * usual AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_REGION), a folder path, or by default `<home>/run-store`
 * (enough for workers on the starting machine; other machines need the folder on shared storage).
 */
export async function openRunStore(home: string, env: Env = process.env, cwd = process.cwd()): Promise<RunStore> {
  const named = env.ABP_RUN_STORE?.trim();
  if (named?.startsWith('s3://')) {
    const { openS3RunStore } = await import('./s3.js');
    return openS3RunStore(named, env);
  }
  if (named !== undefined && /^[a-z][a-z0-9+.-]*:\/\//i.test(named))
    throw new StackError(
      'invalid-setting',
      `ABP_RUN_STORE=${named}: a run store is a folder every worker mounts, or s3://bucket[/prefix]; no other scheme is read`,
    );
  return new FolderRunStore(named ? resolve(cwd, named) : join(home, 'run-store'));
}
