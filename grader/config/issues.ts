// Renders zod issues as the lines a person reads under "<file> is not valid": the field's path, then the problem.
import type { z } from 'zod';
import { locateIssues } from '../../schemas/issues.js';
import { formatJsonPath } from '../../schemas/json-text.js';

export function formatIssues(issues: readonly z.core.$ZodIssue[]): string {
  return locateIssues(issues)
    .map((issue) => `  ${formatJsonPath(issue.path)}: ${issue.message}`)
    .join('\n');
}
