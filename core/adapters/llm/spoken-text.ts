// The text a conversation model streams, filtered as it may be spoken: shared by every model-backed engine.
import type { UnfinishedTurn } from '../../ports/conversation-engine';
import { listenSentinel, turnMarkers } from './conversation-prompt';

/**
 * The streamed text as it may be spoken: leading white space dropped, a leading turn marker dropped (`judging`: an
 * unfinished one makes the reply silent and sets `unfinished`), a leading "<bot name>:" dropped, a
 * reply that starts with the listen sentinel is silent (the rest is ignored), and a sentinel later in the
 * text is removed. Text that could still turn into a sentinel or a name prefix is held back until it can't.
 */
export class SpokenText {
  silent = false;
  /** The reply's marker said the person has not finished (only when judging). */
  unfinished: UnfinishedTurn | undefined;
  private started = false;
  private marked = false;
  private pending = '';
  private readonly namePrefix: string;

  constructor(
    botName: string,
    private readonly judging = false,
  ) {
    this.namePrefix = `${botName.trim()}:`.toLowerCase();
  }

  push(delta: string): string {
    this.pending += delta;
    if (!this.started && !this.start(false)) return '';
    return this.flush(false);
  }

  end(): string {
    if (this.silent) return '';
    if (!this.started && !this.start(true)) return '';
    return this.flush(true).trimEnd();
  }

  /** Decides how the reply begins; false while undecided (or silent). */
  private start(final: boolean): boolean {
    for (;;) {
      const lead = this.pending.trimStart();
      const lower = lead.toLowerCase();
      this.pending = lead;
      if (!lead) return false;
      const marker = this.marked ? undefined : markerKinds.get(lead[0]!);
      if (marker) {
        this.marked = true;
        this.pending = lead.slice(1);
        if (!this.judging || marker === 'complete') continue;
        this.unfinished = marker;
        this.silent = true;
        return false;
      }
      if (lower.startsWith(listenSentinel.toLowerCase())) {
        this.silent = true;
        return false;
      }
      if (lower.startsWith(this.namePrefix)) {
        this.pending = lead.slice(this.namePrefix.length);
        continue;
      }
      const maybe = listenSentinel.toLowerCase().startsWith(lower) || this.namePrefix.startsWith(lower);
      if (maybe && !final) return false;
      // A reply cut off inside "[LISTEN" is still the sentinel.
      if (final && listenSentinel.toLowerCase().startsWith(lower)) {
        this.silent = true;
        return false;
      }
      this.started = true;
      return true;
    }
  }

  private flush(final: boolean): string {
    let text = this.pending.replace(sentinelPattern, '');
    let held = '';
    const open = text.lastIndexOf('[');
    if (!final && open >= 0 && listenSentinel.toLowerCase().startsWith(text.slice(open).toLowerCase())) {
      // The white space before it goes with it: removed with the sentinel, or emitted when it isn't one.
      const from = text.slice(0, open).trimEnd().length;
      held = text.slice(from);
      text = text.slice(0, from);
    }
    this.pending = held;
    return text;
  }
}

const markerKinds = new Map<string, UnfinishedTurn | 'complete'>(
  Object.entries(turnMarkers).map(([kind, mark]) => [mark, kind as UnfinishedTurn | 'complete']),
);

const sentinelPattern = new RegExp(`\\s*${listenSentinel.replace(/[[\]]/g, (c) => `\\${c}`)}`, 'gi');
