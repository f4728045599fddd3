// How both Bedrock engines (conversation, insights) recognise a busy model: the errors that mean "wait and retry".
// The waiting itself is the backoff every language-model adapter shares (core/retry.ts).

/** Errors the Converse APIs return when the model is busy; waiting helps. */
export const bedrockThrottlingErrors: ReadonlySet<string> = new Set([
  'ThrottlingException',
  'ServiceUnavailableException',
  'ModelNotReadyException',
]);
