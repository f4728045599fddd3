// What a session costs: credits per started minute (ARCHITECTURE.md).

/** Started minutes between two instants: 0 s → 0, 1 ms … 60 s → 1, 60.001 s → 2. */
export function startedMinutes(startedAt: string, endedAt: string): number {
  const ms = Date.parse(endedAt) - Date.parse(startedAt);
  if (!Number.isFinite(ms) || ms <= 0) return 0;
  return Math.ceil(ms / 60_000);
}

export function usageCharge(startedAt: string, endedAt: string, creditsPerMinute: number): number {
  return startedMinutes(startedAt, endedAt) * creditsPerMinute;
}
