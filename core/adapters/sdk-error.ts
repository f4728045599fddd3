// The parts of an AWS SDK v3 service error our classifiers read (a plain Error from the network has only name and
// message): one shape for RunTask's and SES's refusals.
export interface SdkErrorShape {
  name?: string;
  message?: string;
  $fault?: 'client' | 'server';
  $metadata?: { httpStatusCode?: number };
  /** Node's system error code (ECONNRESET, …): the request never got an answer. */
  code?: string;
}

export const sdkErrorOf = (err: unknown): SdkErrorShape => (err ?? {}) as SdkErrorShape;
