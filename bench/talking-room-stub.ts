// Runs in the bot's page for the recording benchmark: the daily-js stand-in of test/browser, whose people talk for the
// whole meeting. Each present participant in turn says a WAV (espeak-ng speech, carried by the scenario) into their
// audio track, with daily-js's remote audio levels every 200 ms, so a bot has a meeting's audio to receive and record.
import type { DailyCall, DailyFactoryOptions } from '@daily-co/daily-js';
// For its declaration of window.__botEvent, the channel the page logs through.
import type {} from '../bot-task/providers/daily/page/harness';
import stub, { type StubScenario } from '../test/browser/daily-stub';

export interface TalkingScenario extends StubScenario {
  /** One WAV (base64) per present participant, said in turn with `pauseMs` between turns, until the bot leaves. */
  talk: { wavs: string[]; pauseMs: number };
}

/** daily-js's default interval of the remote audio level observer. */
const levelsEveryMs = 200;
const speakingLevel = 0.3;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function talk(scenario: TalkingScenario): Promise<void> {
  const call = window.__dailyStub;
  const people = scenario.present ?? [];
  const { wavs, pauseMs } = scenario.talk;
  if (!call || !people.length || !wavs.length) return;
  while (call.meetingState() !== 'joined-meeting') {
    if (['left-meeting', 'error'].includes(call.meetingState())) return;
    await sleep(100);
  }
  const inCall = () => call.meetingState() === 'joined-meeting';
  let speaking: string | undefined;
  const levels = setInterval(() => {
    if (inCall())
      call.audioLevels(Object.fromEntries(people.map((p) => [p.id, p.id === speaking ? speakingLevel : 0])));
  }, levelsEveryMs);
  try {
    for (let turn = 0; inCall(); turn++) {
      const person = people[turn % people.length]!;
      speaking = person.id;
      await call.speak(person.id, wavs[(turn % people.length) % wavs.length]!);
      speaking = undefined;
      await sleep(pauseMs);
    }
  } finally {
    clearInterval(levels);
  }
}

const factory = {
  createCallObject(options?: DailyFactoryOptions): DailyCall {
    const call = stub.createCallObject(options);
    const scenario = window.__dailyStubScenario as TalkingScenario | undefined;
    if (scenario?.talk)
      void talk(scenario).catch((err) =>
        window.__botEvent?.({ type: 'log', level: 'warn', message: `talking room: ${String(err)}` }),
      );
    return call;
  },
};

export default factory;
