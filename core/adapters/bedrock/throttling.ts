// How both Bedrock engines (conversation, insights) treat a busy model: which errors mean "wait and retry", and
// how long to wait before retry n.

/** Errors the Converse APIs return when the model is busy; waiting helps. */
export const bedrockThrottlingErrors: ReadonlySet<string> = new Set([
  'ThrottlingException',
  'ServiceUnavailableException',
  'ModelNotReadyException',
]);

/** Backoff before retry n: min(max, base·2ⁿ), with jitter in [50%, 100%] of it. */
export function throttleBackoffMs(
  attempt: number,
  baseMs: number,
  maxMs: number,
  random: () => number,
): number {
  const ceiling = Math.min(maxMs, baseMs * 2 ** attempt);
  return Math.round(ceiling * (0.5 + 0.5 * random()));
}
