// Turns a schema failure into one validation_error whose detail names every offending field.
import type { z } from 'zod';
import { ApiError } from '../errors';

export function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 10)
    .map((issue) => {
      const at = issue.path.map(String).join('.');
      if (issue.code === 'unrecognized_keys') {
        return issue.keys.map((k) => `${at ? `${at}.` : ''}${k}: unknown field`).join('; ');
      }
      return `${at || 'body'}: ${issue.message}`;
    })
    .join('; ');
}

export function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown): z.infer<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw new ApiError('validation_error', describeIssues(result.error));
  return result.data;
}
