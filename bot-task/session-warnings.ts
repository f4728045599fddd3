// The session's warnings as the bot raises them: each recorded on the session once, counted as a metric and logged.
import type { SessionWarning } from '../core/bots/session';
import type { Logger } from '../core/log';
import { metrics } from '../core/metrics';
import type { SessionsStore } from '../core/ports/sessions-store';
import { retry } from '../core/retry';

export class SessionWarnings {
  /** Codes this process raised already: a fallback is told once, however many lines it then affects. */
  private readonly raised = new Set<string>();
  private readonly writes: Promise<void>[] = [];

  constructor(
    private readonly botId: string,
    private readonly sessions: Pick<SessionsStore, 'addWarning'>,
    private readonly log: Logger,
    /** The session's warnings already recorded (by a bot this one replaces): not raised, counted or logged again. */
    recorded: readonly SessionWarning[] = [],
  ) {
    for (const w of recorded) this.raised.add(w.code);
  }

  add(warning: SessionWarning): void {
    if (this.raised.has(warning.code)) return;
    this.raised.add(warning.code);
    metrics.sessionWarning(warning.code);
    this.log.warn('session warning', { warning_code: warning.code, warning_message: warning.message });
    // Retried: a warning lost would be a silent degradation again.
    const write = retry(() => this.sessions.addWarning(this.botId, warning), { attempts: 4, baseMs: 400 });
    this.writes.push(
      write.then(
        () => {},
        (err) => this.log.error('could not record a session warning', { warning_code: warning.code, err }),
      ),
    );
  }

  /** Resolves once every warning raised so far is written (or given up): the bot waits for it before it hands over. */
  async flush(): Promise<void> {
    await Promise.all(this.writes);
  }
}
