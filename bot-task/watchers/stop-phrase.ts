// Exit reason stop_phrase: a participant's final utterance contains bot_config.stop_phrase (never the bot's own).
import { StopPhraseMatcher } from '../../core/bots/stop-phrase';
import type { ExitTrigger, RoomSignals, Watcher } from './watcher';

export function stopPhraseWatcher(room: RoomSignals, phrase: string | undefined, exit: ExitTrigger): Watcher {
  const matcher = new StopPhraseMatcher(phrase ?? '');
  let stopped = false;
  if (matcher.active) {
    room.on('utterance', (u) => {
      if (stopped || !u.final || u.participantId === room.selfId) return;
      if (matcher.hear(u.participantId, u.text)) exit('stop_phrase');
    });
  }
  return {
    stop() {
      stopped = true;
    },
  };
}
