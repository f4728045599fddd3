// The bot's life as one state machine: its states, the transitions allowed between them, and what each transition
// writes on the session and emits. Every path that moves a bot takes its step here before it writes: the bot itself
// (bot-task/bot.ts), the warm pool's claim and its cold fallback, the leave, a replacement, task-stopped, the sweeper
// and the results stage. This module keeps a writer from planning a step its bot's state does not allow; the store
// (core/ports/sessions-store.ts writeStep) writes a step only while the session is still in a state the step leaves
// (`storedAs`), so a writer that read an older state, or lost a race, writes nothing. The heartbeat's beat is no
// transition (it moves no bot): it writes only `heartbeatAt`, in any running state (bot-task/heartbeat.ts).
import type { ExitReason, SessionErrorCode } from '../schemas/api';
import type { Insights, QaPair } from '../schemas/results';
import type { BotSession, RecordingFileInfo, Replacement, SessionClaim } from './session';

export const botStates = [
  /** Created with a later join time; no bot yet. */
  'scheduled',
  /** A bot is being found (pool claim, cold start) or is getting into the room. */
  'joining',
  /** The room keeps the bot in its waiting room until someone admits it. */
  'waiting_room',
  /** In the room, transcribing and talking. */
  'in_call',
  /** The bot was lost after it had been in the room; a new task is rejoining. */
  'replacing',
  /** Asked to leave, or left: the results stage has (or will get) the hand-over. */
  'leaving',
  /** Completed, with results. */
  'done',
  /** Failed: never got in, lost for good, removed, or unable to hear. */
  'failed',
] as const;
export type BotState = (typeof botStates)[number];

/** States a bot never leaves. */
export const finalStates: readonly BotState[] = ['done', 'failed'];

/** Before the bot is in the room: a bot lost here never joined (not charged, bot_join_failed). */
export function beforeRoom(state: BotState): boolean {
  return state === 'scheduled' || state === 'joining' || state === 'waiting_room';
}

/**
 * Where a session's bot stands, from its stored fields. `scheduled` is entered only by a scheduled join; `waiting_room`
 * comes from the last recorded status change, which the control plane writes a moment after the bot sent it.
 */
export function stateOf(
  s: Pick<
    BotSession,
    | 'status'
    | 'joinedAt'
    | 'leftAt'
    | 'stopRequestedAt'
    | 'replacements'
    | 'statusChanges'
    | 'joinAt'
    | 'dispatchedAt'
  >,
): BotState {
  if (s.status === 'completed') return 'done';
  if (s.status === 'failed') return 'failed';
  if (s.leftAt || s.stopRequestedAt) return 'leaving';
  // A scheduled join no bot was given yet (core/bots/scheduled-joins.ts).
  if (s.joinAt && !s.dispatchedAt) return 'scheduled';
  const replacement = s.replacements?.at(-1);
  if (replacement && !replacement.joinedAt) return 'replacing';
  if (s.joinedAt) return 'in_call';
  return s.statusChanges?.at(-1)?.code === 'in_waiting_room' ? 'waiting_room' : 'joining';
}

/** A test a store's write can make of a stored session: its status, and which fields stateOf reads are set. */
export type StoredTest = { status: BotSession['status'] } & {
  [F in 'joinedAt' | 'leftAt' | 'stopRequestedAt' | 'joinAt' | 'dispatchedAt']?: boolean;
};
const unleft = { status: 'running', leftAt: false, stopRequestedAt: false } as const;
/**
 * Each state as the store can test it, alternatives of which one holds. The last replacement and the last status
 * change are list elements no condition can pick by position, so in_call and replacing test alike, as do joining and
 * waiting_room: between those only the writer's plan decides (and the replacement count a loss is conditioned on).
 */
const unjoined: readonly StoredTest[] = [
  { ...unleft, joinedAt: false, joinAt: false },
  { ...unleft, joinedAt: false, dispatchedAt: true },
];
const joined: readonly StoredTest[] = [{ ...unleft, joinedAt: true }];
export const storedAs: Record<BotState, readonly StoredTest[]> = {
  scheduled: [{ ...unleft, joinAt: true, dispatchedAt: false }],
  joining: unjoined,
  waiting_room: unjoined,
  in_call: joined,
  replacing: joined,
  leaving: [
    { status: 'running', leftAt: true },
    { status: 'running', stopRequestedAt: true },
  ],
  done: [{ status: 'completed' }],
  failed: [{ status: 'failed' }],
};

/** The stored tests of `states`, any one of which holds; all running states is simply `running`. */
export function storedCondition(states: readonly BotState[]): StoredTest[] {
  if (runningStates.every((s) => states.includes(s)))
    return [
      { status: 'running' },
      ...states.filter((s) => !runningStates.includes(s)).flatMap((s) => storedAs[s]),
    ];
  return [...new Set(states.flatMap((s) => storedAs[s]))];
}

/** What each transition is given; its writes are made from it. */
export interface TransitionInputs {
  start: { startedAt: string };
  cancel: { completedAt: string };
  claim: SessionClaim;
  record_task: { taskRef: string; replacement?: number };
  announce: Record<string, never>;
  wait_in_lobby: Record<string, never>;
  admit: { joinedAt: string };
  rejoin: { attempt: number; joinedAt: string };
  lose: { attempt: number; at: string; reason: string };
  request_stop: { at: string };
  leave: { exitReason: ExitReason; leftAt: string };
  hand_over: Record<string, never>;
  resend_handover: { at: string; resends: number };
  save_results: { qaPairs: QaPair[]; insights: Insights | null; insightsError?: string };
  complete: {
    completedAt: string;
    exitReason: ExitReason;
    qaPairs?: QaPair[];
    insights?: Insights | null;
    insightsError?: string;
    recordingFile?: RecordingFileInfo;
  };
  fail: { completedAt: string; error: string; errorCode?: SessionErrorCode };
}
export type Transition = keyof TransitionInputs;

/** What a transition sends: a lifecycle event (status change, opt-in webhook), an always-sent webhook, a message. */
export type Emitted =
  | 'bot.joining'
  | 'bot.in_waiting_room'
  | 'bot.in_call'
  | 'bot.left'
  | 'bot.replaced'
  | 'bot.done'
  | 'session_complete'
  | 'bot_join_failed'
  | 'bot_failed'
  /** The hand-over to the results stage (results queue). */
  | 'session_ended';

export type SessionChanges = Partial<Omit<BotSession, 'botId' | 'accountId'>>;

/** One step: where it leads, what it writes on the session (and on one replacement), what it sends. */
export interface Step {
  from: BotState;
  /** The states the transition is allowed from: its write is conditioned on the session being in one of them. */
  leaves: readonly BotState[];
  to: BotState;
  transition: Transition;
  changes: SessionChanges;
  /** A write to the `index`-th replacement (appended when it does not exist yet). */
  replacement?: { index: number; set: Partial<Replacement> };
  emits: readonly Emitted[];
}

interface Definition<T extends Transition> {
  from: readonly BotState[];
  /** Where it leads; unset: the state it came from (a step within a state). */
  to?: BotState;
  /** The session fields it writes (`replacements` for a replacement's entry). */
  fields: readonly (keyof BotSession)[];
  emits: readonly Emitted[] | ((from: BotState) => readonly Emitted[]);
  /** Who takes the step, and what the store's write checks besides its `from` states. */
  by: string;
  writes: (input: TransitionInputs[T]) => Pick<Step, 'changes' | 'replacement'>;
}

const live: readonly BotState[] = ['joining', 'waiting_room', 'in_call', 'replacing', 'leaving'];
/** The states of a running session: what a write that moves no bot (the heartbeat) is conditioned on. */
export const runningStates: readonly BotState[] = ['scheduled', ...live];
const none = () => ({ changes: {} });

export const lifecycle: { [T in Transition]: Definition<T> } = {
  start: {
    from: ['scheduled'],
    to: 'joining',
    fields: ['startedAt'],
    emits: [],
    by: 'the scheduled join, when its time comes',
    writes: ({ startedAt }) => ({ changes: { startedAt } }),
  },
  cancel: {
    from: ['scheduled'],
    to: 'done',
    fields: ['status', 'completedAt', 'exitReason'],
    emits: ['bot.done', 'session_complete'],
    by: 'a leave before the join time; nothing charged',
    writes: ({ completedAt }) => ({
      changes: { status: 'completed', completedAt, exitReason: 'force_leave' },
    }),
  },
  claim: {
    from: ['joining', 'waiting_room'],
    fields: ['claimedBy', 'claimedAt', 'startPath', 'taskRef'],
    emits: [],
    by: 'a pooled bot (only while offered, unclaimed, not asked to stop) or the cold fallback (unclaimed, or from a pooled bot lost before the room)',
    writes: (c) => ({
      changes: {
        claimedBy: c.by,
        claimedAt: c.at,
        startPath: c.path,
        ...(c.taskRef !== undefined && { taskRef: c.taskRef }),
      },
    }),
  },
  record_task: {
    from: ['joining', 'waiting_room', 'replacing'],
    fields: ['taskRef', 'replacements'],
    emits: [],
    by: 'whoever started the task (the cold fallback, a replacement)',
    writes: ({ taskRef, replacement }) =>
      replacement === undefined
        ? { changes: { taskRef } }
        : { changes: {}, replacement: { index: replacement, set: { taskRef } } },
  },
  announce: {
    from: ['joining'],
    fields: [],
    emits: ['bot.joining'],
    by: 'the bot, as it starts joining (not a replacement)',
    writes: none,
  },
  wait_in_lobby: {
    from: ['joining', 'replacing'],
    to: 'waiting_room',
    fields: [],
    emits: ['bot.in_waiting_room'],
    by: 'the bot, when the room puts it in its waiting room',
    writes: none,
  },
  admit: {
    from: ['joining', 'waiting_room'],
    to: 'in_call',
    // The transcript mark too: segments exist only from here on, and the bot's first save waits for this write.
    fields: ['joinedAt', 'transcriptAt'],
    emits: ['bot.in_call'],
    by: 'the first bot, in the room (charged from now)',
    writes: ({ joinedAt }) => ({ changes: { joinedAt, transcriptAt: joinedAt } }),
  },
  rejoin: {
    from: ['replacing', 'waiting_room'],
    to: 'in_call',
    fields: ['replacements'],
    emits: [],
    by: 'a replacement, back in the room (the bot it replaces leaves on seeing it)',
    writes: ({ attempt, joinedAt }) => ({
      changes: {},
      replacement: { index: attempt - 1, set: { joinedAt } },
    }),
  },
  lose: {
    from: ['in_call', 'replacing'],
    to: 'replacing',
    fields: ['replacements'],
    emits: ['bot.replaced'],
    by: 'the control plane, with exactly `attempt` replacements',
    writes: ({ attempt, at, reason }) => ({
      changes: {},
      replacement: { index: attempt, set: { at, reason } },
    }),
  },
  request_stop: {
    // A stop before a scheduled join is handed out cancels it: no bot can be given a session with a stop request.
    from: runningStates,
    to: 'leaving',
    fields: ['stopRequestedAt'],
    emits: [],
    by: 'the leave endpoint (also the bot’s own stop item); first request time wins',
    writes: ({ at }) => ({ changes: { stopRequestedAt: at } }),
  },
  leave: {
    from: live,
    to: 'leaving',
    fields: ['exitReason', 'leftAt'],
    emits: ['bot.left', 'session_ended'],
    by: 'the bot, out of the room (or the results stage, when the bot could not write it)',
    writes: ({ exitReason, leftAt }) => ({ changes: { exitReason, leftAt } }),
  },
  hand_over: {
    from: ['leaving'],
    fields: [],
    emits: ['session_ended'],
    by: 'task-stopped, the sweeper, a replacement request or the cold fallback, for a bot gone after the leave',
    writes: none,
  },
  resend_handover: {
    from: ['leaving'],
    fields: ['handoverResentAt', 'handoverResends'],
    emits: [],
    by: 'the sweeper, after handing stuck results over again',
    writes: ({ at, resends }) => ({ changes: { handoverResentAt: at, handoverResends: resends } }),
  },
  save_results: {
    from: ['leaving'],
    fields: ['qaPairs', 'insights', 'insightsError'],
    emits: [],
    by: 'the results stage, before it assembles the recording (a redelivery finds them saved and runs no model again)',
    writes: ({ qaPairs, insights, insightsError }) => ({ changes: { qaPairs, insights, insightsError } }),
  },
  complete: {
    from: ['leaving'],
    to: 'done',
    fields: ['status', 'completedAt', 'exitReason', 'qaPairs', 'insights', 'insightsError', 'recordingFile'],
    emits: ['bot.done', 'session_complete'],
    by: 'the results stage, after settling the credits',
    writes: (r) => ({
      changes: {
        status: 'completed',
        completedAt: r.completedAt,
        exitReason: r.exitReason,
        qaPairs: r.qaPairs ?? [],
        insights: r.insights ?? null,
        insightsError: r.insightsError,
        ...(r.recordingFile && { recordingFile: r.recordingFile }),
      },
    }),
  },
  fail: {
    from: live,
    to: 'failed',
    fields: ['status', 'completedAt', 'error', 'errorCode'],
    emits: (from) => (beforeRoom(from) ? ['bot_join_failed'] : ['bot_failed']),
    by: 'the bot, the join, the fallback, a replacement or task-stopped, after settling the credits',
    writes: ({ completedAt, error, errorCode }) => ({
      changes: { status: 'failed', completedAt, error, errorCode },
    }),
  },
};

export const transitions = Object.keys(lifecycle) as Transition[];

/** A step the bot's state does not allow: refused, nothing written. */
export class IllegalTransitionError extends Error {
  readonly code = 'illegal_transition';
  constructor(
    readonly from: BotState,
    readonly transition: Transition,
    readonly botId?: string,
  ) {
    super(
      `${botId ? `bot ${botId}: ` : ''}cannot ${transition} from ${from} (allowed from ${lifecycle[transition].from.join(', ')})`,
    );
    this.name = 'IllegalTransitionError';
  }
}

export function can(from: BotState, transition: Transition): boolean {
  return lifecycle[transition].from.includes(from);
}

/** The step `transition` takes from `from`, with its writes; throws IllegalTransitionError when not allowed. */
export function plan<T extends Transition>(
  from: BotState,
  transition: T,
  input: TransitionInputs[T],
  botId?: string,
): Step {
  const d = lifecycle[transition] as Definition<T>;
  if (!d.from.includes(from)) throw new IllegalTransitionError(from, transition, botId);
  return {
    from,
    to: d.to ?? from,
    transition,
    ...stepWrite(transition, input),
    emits: typeof d.emits === 'function' ? d.emits(from) : d.emits,
  };
}

/** What `transition` writes, for a writer that does not hold the bot's state: the store's condition decides. */
export function stepWrite<T extends Transition>(
  transition: T,
  input: TransitionInputs[T],
): Pick<Step, 'leaves' | 'changes' | 'replacement'> {
  const d = lifecycle[transition] as Definition<T>;
  return { leaves: d.from, ...d.writes(input) };
}

/** One bot's state as its own process sees it: each step moves it, an illegal one throws. */
export class BotLife {
  constructor(
    public state: BotState,
    readonly botId?: string,
  ) {}

  can(transition: Transition): boolean {
    return can(this.state, transition);
  }

  step<T extends Transition>(transition: T, input: TransitionInputs[T]): Step {
    const s = plan(this.state, transition, input, this.botId);
    this.state = s.to;
    return s;
  }
}
