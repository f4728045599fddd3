// The room's transcription, everything the bot hears: the bot uses one already running, starts its own when there is
// none or it stops (unless a person in the room stopped it), and turns its messages into utterances. Each change is
// reported to Node, which ends the session when it cannot get it running in time (TRANSCRIPTION_RECOVERY_MS).
import type {
  DailyCall,
  DailyEventObjectTranscriptionError,
  DailyEventObjectTranscriptionMessage,
  DailyEventObjectTranscriptionStarted,
  DailyEventObjectTranscriptionStopped,
  DailyParticipant,
} from '@daily-co/daily-js';
import { emit, log, messageOf } from './node-channel';
import { sendsInterims, TranscriptFinality } from './transcript-finality';

export interface TranscriptionSettings {
  /** A Deepgram code (bot_config.language). */
  language: string;
  /** Deepgram's endpointing in ms (the silence that finalizes words); absent: Deepgram's default. */
  endpointingMs?: number | undefined;
  /** Ask for Deepgram's interim results (`interim_results`); absent: finals only. */
  interimResults?: boolean | undefined;
  /** While it is not running, how often the bot tries to start it again. */
  transcriptionRetryMs: number;
  /** How soon a participant who stopped it must leave for the stop to count as a departing bot's (restarted). */
  stopperLeaveGraceMs?: number | undefined;
}

/** How often one call restarts a transcription stopped by someone gone. */
const maxTranscriptionRestarts = 5;
/** How long after getting in the bot waits to hear of a transcription already running before it starts its own. */
const alreadyRunningWaitMs = 1000;
/** A bot stops its own transcription, then leaves within 5 s (harness.ts leave()): a stopper gone by then was a bot. */
const defaultStopperLeaveGraceMs = 10_000;
/** How long after a stop transcription messages may still be the stopped transcription's last words. */
const lateMessageMs = 3000;

/**
 * `endpointing` and `extra.interim_results` are Deepgram's options (https://docs.daily.co/reference/daily-js/instance-methods/start-transcription,
 * https://developers.deepgram.com/docs/understand-endpointing-interim-results); the raw response has `is_final`.
 */
function transcriptionOptions(o: TranscriptionSettings) {
  return {
    language: o.language,
    punctuate: true,
    includeRawResponse: true,
    ...(o.endpointingMs !== undefined && { endpointing: o.endpointingMs }),
    ...(o.interimResults && { extra: { interim_results: true } }),
  };
}

/**
 * Follows the transcription of `call` from now on (its events are listened to at once, before the join). `inCall`:
 * the bot has joined and is neither leaving nor disconnected, the only time it starts a transcription.
 */
export function roomTranscription(call: DailyCall, o: TranscriptionSettings, inCall: () => boolean) {
  // `ours`: the bot started it (it stops only its own when it leaves); `stoppedByPerson`: theirs to decide, not started
  // again; `stopper`: a stop by someone still in the room who may be a bot about to leave.
  let running = false;
  let ours = false;
  let stoppedByPerson = false;
  let retry: ReturnType<typeof setTimeout> | undefined;
  let stopper: { id: string; decided: ReturnType<typeof setTimeout> } | undefined;
  let stoppedAt = 0;
  let restarts = 0;
  const names = new Map<string, string>();
  /** Final words from interim ones, whatever shape the room's transcription sends (transcript-finality.ts). */
  const finality = new TranscriptFinality((w) =>
    emit({ type: 'utterance', ...w, name: names.get(w.participantId) ?? 'Guest' }),
  );
  const selfSessionId = () => call.participants().local?.session_id;
  // Announced while the bot is still joining, a starter may not be remembered yet.
  const nameOf = (sessionId: string) =>
    names.get(sessionId) ??
    Object.values(call.participants()).find((p) => p.session_id === sessionId)?.user_name;

  const report = (state: 'running' | 'failed' | 'stopped', reason: string) =>
    emit({ type: 'transcription', state, reason, ...(state === 'running' && { ours }) });
  const forgetRetry = () => {
    clearTimeout(retry);
    retry = undefined;
  };
  const start = () => {
    forgetRetry();
    if (!inCall() || running || stoppedByPerson) return;
    try {
      // Throws only outside 'joined-meeting'; a refusal (no transcription rights) comes as `transcription-error`.
      call.startTranscription(transcriptionOptions(o));
    } catch (err) {
      failed(`transcription could not be started: ${messageOf(err)}`);
    }
  };
  const failed = (reason: string, tryAgain = true) => {
    running = false;
    report('failed', reason);
    if (tryAgain && !retry) retry = setTimeout(start, o.transcriptionRetryMs);
  };
  const forgetStopper = () => {
    clearTimeout(stopper?.decided);
    stopper = undefined;
  };
  // The room's transcription stopped while the bot is in the call (the bot that started it left): started again, or the
  // bot would hear nothing. A stopper still in the room is given `stopperLeaveGraceMs` to go (a bot stops its own just
  // before it leaves): gone, it was a departing bot; still there, a person's decision, left `stopped`. Meanwhile it
  // counts as failed (Node's recovery clock runs). Bounded, so two parties that keep stopping it cannot make a loop.
  const restartAfterStop = (by: string) => {
    if (restarts >= maxTranscriptionRestarts) {
      log('warn', 'transcription stopped again; restarts used up');
      failed(
        'transcription stopped again and again by someone no longer in the room; restarts used up',
        false,
      );
      return;
    }
    restarts++;
    failed(`transcription stopped by ${by}`, false);
    start();
    log('info', `transcription stopped by ${by}; restarted`);
  };

  call.on('transcription-message', (e: DailyEventObjectTranscriptionMessage) => {
    // Words from someone else prove the room's transcription runs, whether or not Daily announced it (a transcription
    // already running, a non-fatal transcription-error): the bot stops trying to start one, and never stops this one.
    // Not while a stop is being decided, nor just after one: words said before a stop can arrive after it.
    const settled = !stopper && Date.now() - stoppedAt > lateMessageMs;
    if (!running && settled && e.participantId !== selfSessionId()) {
      forgetRetry();
      running = true;
      ours = false;
      stoppedByPerson = false;
      report('running', 'transcription messages arrive from the room; used as it is');
    }
    finality.message({
      participantId: e.participantId,
      text: e.text,
      at: new Date(e.timestamp ?? Date.now()).toISOString(),
      // Declared always present, but Daily includes it only for a transcription started with includeRawResponse.
      rawResponse: e.rawResponse as Record<string, unknown> | undefined,
    });
  });
  // A transcription someone else started is used and never stopped, also the one a replaced bot left running for its
  // replacement: a display name cannot tell that bot from another bot or a person of the same name (the default
  // "Meeting Bot"), and stopping theirs would deafen them. So it may run on after the session until the room empties.
  call.on('transcription-started', (e: DailyEventObjectTranscriptionStarted) => {
    forgetRetry();
    forgetStopper();
    running = true;
    stoppedByPerson = false;
    finality.interims = sendsInterims(e);
    ours = e.startedBy === selfSessionId();
    report(
      'running',
      ours
        ? `started by the bot (${e.language})`
        : `already running, started by ${nameOf(e.startedBy) ?? 'another participant'} (${e.language}); used as it is`,
    );
  });
  call.on('transcription-error', (e: DailyEventObjectTranscriptionError) =>
    failed(`Daily transcription error: ${e.errorMsg || 'no reason given'}`),
  );
  call.on('transcription-stopped', (e: DailyEventObjectTranscriptionStopped) => {
    running = false;
    stoppedAt = Date.now();
    finality.settleAll();
    finality.interims = undefined;
    forgetStopper();
    if (!inCall()) return;
    const by = Object.values(call.participants()).find((p) => !p.local && p.session_id === e.updatedBy);
    if (!by) return restartAfterStop('someone no longer in the room');
    const who = by.user_name || 'a participant';
    failed(`transcription stopped by ${who}; restarted if they leave the room soon`, false);
    stopper = {
      id: by.session_id,
      decided: setTimeout(() => {
        stopper = undefined;
        if (running || !inCall()) return;
        stoppedByPerson = true;
        const reason = `transcription stopped by ${who}, who stays in the room; not restarted`;
        log('warn', reason);
        report('stopped', reason);
      }, o.stopperLeaveGraceMs ?? defaultStopperLeaveGraceMs),
    };
  });

  return {
    remember(p: DailyParticipant) {
      names.set(p.session_id, p.user_name || 'Guest');
    },
    /** Their pending words are final (before Node hears that they left). */
    settle: (sessionId: string) => finality.settle(sessionId),
    settleAll: () => finality.settleAll(),
    left(sessionId: string) {
      if (stopper?.id !== sessionId) return;
      forgetStopper();
      if (!running && inCall()) restartAfterStop('a participant who left the room right after');
    },
    /**
     * A transcription the customer's app already runs is announced to a joiner with `transcription-started` (the event
     * pipecat-ai/pipecat#2241 describes a bot mishandling): the bot uses it as it is, and starts its own only when
     * none was announced shortly after it got in. Not restarting it keeps the customer's settings; the bot's own is
     * the only one it stops when it leaves.
     */
    joined() {
      if (!running) setTimeout(start, alreadyRunningWaitMs);
    },
    /** `keep`: leave the bot's own transcription running (its replacement uses it). */
    leave(keep: boolean) {
      clearTimeout(retry);
      clearTimeout(stopper?.decided);
      if (!running || !ours || keep) return;
      try {
        call.stopTranscription();
        log('info', 'stopped the transcription the bot started');
      } catch (err) {
        log('warn', `transcription not stopped: ${messageOf(err)}`);
      }
    },
  };
}
