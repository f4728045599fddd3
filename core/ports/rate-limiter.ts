// Port: per-API-key request rate limiting (429 rate_limited, ARCHITECTURE.md).

export interface RateDecision {
  allowed: boolean;
  /** Seconds until the next request may pass, when refused. */
  retryAfterSeconds: number;
}

export interface RateLimiter {
  consume(subject: string, limitPerMinute: number, now?: Date): Promise<RateDecision>;
}
