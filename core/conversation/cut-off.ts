// How a bot line cut off by someone talking over it reads in the conversation context: its text ending in "…".
// The controller marks it (it knows the speech was interrupted); engines read the mark.

const mark = '…';

/** The line as the engines should see it once its speech was interrupted. */
export function cutOff(text: string): string {
  return wasCutOff(text) ? text : `${text.replace(/[\s.!?,;:]+$/, '')}${mark}`;
}

export function wasCutOff(text: string): boolean {
  return text.trimEnd().endsWith(mark);
}
