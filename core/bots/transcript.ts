// Transcript lines and how they read as text (the status `transcript`, the webhook `transcript_text`).

export interface Utterance {
  speaker: string;
  participant_id: string;
  /** When the line was spoken (ISO 8601). */
  started_at: string;
  text: string;
  /** Spoken by our bot: labelled with its name, never a trigger for the stop phrase or idle timer. */
  is_bot?: boolean;
}

/** One "Speaker: text" line per utterance, in order. */
export function transcriptText(utterances: readonly Utterance[]): string {
  return utterances.map((u) => `${u.speaker}: ${u.text}`).join('\n');
}

/**
 * One transcript from the lines each task of a session saved (attempt 0 first, then each replacement's). A bot that
 * hands over to its replacement keeps transcribing until the replacement is in the room, so both may hold the same
 * utterance (the room's transcription gives each the same speaker, time and words): it is kept once. With more than
 * one task the lines are put in time order (stable, so one task's own order stands where times tie).
 */
export function mergeAttempts(attempts: readonly (readonly Utterance[])[]): Utterance[] {
  if (attempts.length <= 1) return [...(attempts[0] ?? [])];
  const seen = new Set<string>();
  const merged: Utterance[] = [];
  for (const lines of attempts) {
    for (const line of lines) {
      const key = `${line.participant_id}\u0000${line.started_at}\u0000${line.text}`;
      if (seen.has(key)) continue;
      seen.add(key);
      merged.push(line);
    }
  }
  return merged.sort((a, b) => Date.parse(a.started_at) - Date.parse(b.started_at));
}
