// Stop-phrase matching: case-, punctuation- and whitespace-insensitive, across transcription chunk boundaries.

/** Letters and digits only, lower-cased: "Stop, the-Bot!" and "stop the bot" compare equal. */
export function normalizeForMatch(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]/gu, '');
}

/**
 * Watches one speaker's final utterances for the phrase. Each speaker has a rolling tail of normalised text,
 * so "please stop the bo" followed by "t now" matches "stop the bot" while two speakers' words never combine.
 */
export class StopPhraseMatcher {
  private readonly phrase: string;
  private readonly tails = new Map<string, string>();

  constructor(phrase: string) {
    this.phrase = normalizeForMatch(phrase);
  }

  get active(): boolean {
    return this.phrase.length > 0;
  }

  /** Feeds one final utterance of a speaker; true when the phrase has now been said. */
  hear(speakerId: string, text: string): boolean {
    if (!this.active) return false;
    const joined = (this.tails.get(speakerId) ?? '') + normalizeForMatch(text);
    if (joined.includes(this.phrase)) {
      this.tails.delete(speakerId);
      return true;
    }
    this.tails.set(speakerId, joined.slice(-(this.phrase.length - 1)));
    return false;
  }
}
