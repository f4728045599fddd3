// Stop-phrase matching: case-, accent- and punctuation-insensitive, on whole words, across one speaker's utterances.

/** Letters and digits only, lower-cased: "Stop, the-Bot!" and "stop the bot" compare equal. */
export function normalizeForMatch(text: string): string {
  return words(text).replace(/ /g, '');
}

/** Lower-cased words of letters and digits, accents removed, separated by single spaces. */
function words(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/**
 * Whether `phrase` (letters only) occurs in `text` (words separated by spaces) starting at the start of a word and
 * ending at the end of one. Spaces inside the occurrence are ignored, so "good bye bot" says "goodbye bot", but
 * "stopping" does not say "stop" and "we spend meetings" does not say "end meeting".
 */
function saysPhrase(text: string, phrase: string): boolean {
  let letters = '';
  const startsWord: boolean[] = [];
  const endsWord: boolean[] = [];
  for (let i = 0; i < text.length; i++) {
    if (text[i] === ' ') continue;
    startsWord.push(i === 0 || text[i - 1] === ' ');
    endsWord.push(i === text.length - 1 || text[i + 1] === ' ');
    letters += text[i];
  }
  for (let at = letters.indexOf(phrase); at !== -1; at = letters.indexOf(phrase, at + 1)) {
    if (startsWord[at] && endsWord[at + phrase.length - 1]) return true;
  }
  return false;
}

/**
 * Watches each speaker's final utterances for the phrase. An utterance ends at a word boundary (transcription
 * finals do), and each speaker keeps a tail of their last words, so "please stop the" followed by "bot now"
 * matches "stop the bot" while two speakers' words never combine.
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
    const said = words(text);
    if (!said) return false;
    const tail = this.tails.get(speakerId);
    const joined = tail ? `${tail} ${said}` : said;
    if (saysPhrase(joined, this.phrase)) {
      this.tails.delete(speakerId);
      return true;
    }
    this.tails.set(speakerId, lastWords(joined, this.phrase.length));
    return false;
  }
}

/** The shortest run of whole last words holding at least `letters` letters (or all of `text`). */
function lastWords(text: string, letters: number): string {
  let count = 0;
  for (let i = text.length - 1; i >= 0; i--) {
    if (text[i] === ' ') {
      if (count >= letters) return text.slice(i + 1);
    } else count++;
  }
  return text;
}
