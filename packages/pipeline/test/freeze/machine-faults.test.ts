// What counts as the machine failing rather than the task: by errno, by the line a tool printed, by free space; and
// what does not (a test's own failure, abp's own deadline).
import { describe, expect, it } from 'vitest';
import { diskFullAt, faultOfError, faultOfText } from '../../src/freeze/machine-faults.js';

const errno = (code: string, message = `${code}: something`) => Object.assign(new Error(message), { code });

describe('machine faults', () => {
  it('reads the fault from an error code, following causes', () => {
    expect(faultOfError(errno('ENOSPC'))).toMatchObject({ code: 'disk-full' });
    expect(faultOfError(errno('ENOMEM'))).toMatchObject({ code: 'out-of-memory' });
    expect(faultOfError(errno('EMFILE'))).toMatchObject({ code: 'out-of-file-handles' });
    expect(faultOfError(new Error('fetch failed', { cause: errno('ECONNREFUSED') }))).toMatchObject({
      code: 'unreachable',
    });
    expect(faultOfError(new Error('the fix does not apply'))).toBeNull();
  });

  it('reads the fault from the line a tool printed, and names that line', () => {
    expect(faultOfText('npm ERR! code ENOSPC\nnpm ERR! nospc No space left on device')).toEqual({
      code: 'disk-full',
      message: 'npm ERR! code ENOSPC',
    });
    expect(
      faultOfText('FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory'),
    ).toMatchObject({ code: 'out-of-memory' });
    expect(faultOfText('pytest (exit: killed by SIGKILL)')).toMatchObject({ code: 'process-killed' });
    // abp's own deadline is the suite's fault (a hang), not the machine's.
    expect(faultOfText('timed out (killed by SIGKILL)')).toBeNull();
    expect(faultOfText('FAILED tests/test_a.py::test_x - AssertionError: 1 != 2')).toBeNull();
  });

  it('takes a folder with room for no fault', async () => {
    expect(await diskFullAt(process.cwd())).toBeNull();
    expect(await diskFullAt('/no/such/folder')).toBeNull();
  });
});
