// Transcript lines and how they read as text (the status `transcript`, the webhook `transcript_text`).

export interface Utterance {
  speaker: string;
  participant_id: string;
  /** When the line was spoken (ISO 8601). */
  started_at: string;
  text: string;
  /** Spoken by our bot (issue #4): labelled with its name, never a trigger for the stop phrase or idle timer. */
  is_bot?: boolean;
}

/** One "Speaker: text" line per utterance, in order. */
export function transcriptText(utterances: readonly Utterance[]): string {
  return utterances.map((u) => `${u.speaker}: ${u.text}`).join('\n');
}

/** DynamoDB items stop at 400 KB; the live copy on the session stays well below (in bytes), the segments keep it all. */
export const liveTranscriptMaxBytes = 300_000;
