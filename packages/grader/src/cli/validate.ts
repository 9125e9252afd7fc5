// `abp validate <file…>`: check ABP documents and JSONL traces against their schemas.
import { BoundedReadError, readBoundedFile } from '@abp/protocol/files/bounded-read';
import { MAX_DOCUMENT_BYTES, MAX_TRACE_BYTES } from '../input-limits.js';
import { validateDocumentText, type DocumentValidation } from '@abp/protocol/schemas/documents';
import { CommandFailed, createOutput, type OutputOptions } from './output.js';

export interface ValidateOptions extends OutputOptions {
  /** Keep going after the first invalid file and report every file. */
  all?: boolean;
}

export async function validateCommand(files: string[], options: ValidateOptions): Promise<void> {
  const out = createOutput(options);
  const results: Array<DocumentValidation & { file: string }> = [];
  for (const file of files) {
    let text: string;
    try {
      const maxBytes = file.endsWith('.jsonl') ? MAX_TRACE_BYTES : MAX_DOCUMENT_BYTES;
      text = (await readBoundedFile(file, { maxBytes, what: 'an ABP document or trace' })).toString('utf8');
    } catch (error) {
      if (!(error instanceof BoundedReadError)) throw error;
      results.push({
        file,
        schema: null,
        valid: false,
        errors: [{ path: '$', message: `${error.code}: ${error.message}` }],
      });
      out.error(`${error.code}: ${error.message}`);
      if (!options.all) break;
      continue;
    }
    const result = { file, ...validateDocumentText(text, file) };
    results.push(result);
    if (result.valid) {
      out.line(`${file}: valid ${result.schema}`);
      continue;
    }
    out.error(
      `${file}: invalid${result.schema ? ` ${result.schema}` : ''} (${result.errors.length} ${result.errors.length === 1 ? 'error' : 'errors'})`,
    );
    for (const error of result.errors) {
      out.error(`  ${error.line === undefined ? '' : `line ${error.line}: `}${error.path}: ${error.message}`);
    }
    if (!options.all) break;
  }
  out.data({ valid: results.every((result) => result.valid), files: results });
  const invalid = results.filter((result) => !result.valid).length;
  if (invalid > 0)
    throw new CommandFailed(
      'invalid-documents',
      `${invalid} of ${files.length} ${files.length === 1 ? 'file is' : 'files are'} not valid`,
      true,
    );
}
