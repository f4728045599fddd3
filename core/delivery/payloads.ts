// Webhook bodies built from a finished session (the interface's session_complete plus our additions,
// docs/webhooks.md), validated by schema.
import { type BotSession, recordingSummary, replacementViews, warningViews } from '../bots/session';
import { type SessionCompleteEvent, sessionCompleteSchema } from '../schemas/webhooks';

/** session_complete for a completed session and its transcript text (read from its segments). */
export function sessionCompletePayload(s: BotSession, transcriptText: string): SessionCompleteEvent {
  const started = s.startedAt ?? s.createdAt;
  const completed = s.completedAt ?? new Date().toISOString();
  // The session lasted until the bot left the room; results processing came after.
  const ended = s.leftAt ?? completed;
  const event: SessionCompleteEvent = {
    event: 'session_complete',
    bot_id: s.botId,
    // One transcript per session, identified by the bot id; rooms have no id of their own in our model.
    transcript_id: s.botId,
    room_id: null,
    room_name: s.roomName,
    duration_seconds: Math.max(0, Math.round((Date.parse(ended) - Date.parse(started)) / 1000)),
    transcript_text: transcriptText,
    summary: s.insights?.summary ?? '',
    exit_reason: s.exitReason ?? 'force_leave',
    qa_pairs: s.qaPairs ?? [],
    started_at: started,
    completed_at: completed,
    replacements: replacementViews(s),
    warnings: warningViews(s),
  };
  // As the interface has it: insights omitted when disabled or failed; insights_error only when processing failed.
  if (s.insights) event.insights = s.insights;
  if (s.insightsError) event.insights_error = s.insightsError;
  const recording = recordingSummary(s);
  if (recording) event.recording = recording;
  return sessionCompleteSchema.parse(event);
}
