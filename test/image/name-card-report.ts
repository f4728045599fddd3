// What the name-card stand-in (name-card-stub.ts) reports from the bot's page about one frame of its video track.

/** The line's prefix in the bot's log (the page's log channel: `daily page`, detail). */
export const nameCardReportPrefix = 'name-card frame ';

export interface NameCardReport {
  width: number;
  height: number;
  /** The colour at (8, 8): the card's background. */
  corner: [number, number, number];
  /** Per column, how many pixels of the name's band (rows 250 to 290, the name is drawn at 270) are text-white. */
  nameInk: number[];
}
