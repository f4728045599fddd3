// Test helper: what the process writes to stdout and stderr, kept for a test to search instead of reaching the terminal.
import { vi } from 'vitest';

/** From now until `vi.restoreAllMocks()`, every stdout and stderr write is pushed to the returned array. */
export function captureOutput(): string[] {
  const output: string[] = [];
  const capture = (chunk: unknown) => {
    output.push(String(chunk));
    return true;
  };
  vi.spyOn(process.stdout, 'write').mockImplementation(capture);
  vi.spyOn(process.stderr, 'write').mockImplementation(capture);
  return output;
}
