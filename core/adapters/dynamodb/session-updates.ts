// Updates of a session item: the lifecycle's steps (each conditioned on the states it leaves), its replacements, and
// its meeting content (a failed session's recording file, a deletion's purge).
import { type BotState, lifecycle, runningStates } from '../../bots/lifecycle';
import type { BotSession } from '../../bots/session';
import type { SessionsStore } from '../../ports/sessions-store';
import {
  type Field,
  fieldToAttribute,
  inStates,
  replacementItem,
  toAttributeValue,
  updateSession,
} from './session-item';
import { conditional, runningIndex, type TableHandle, written } from './table';

/**
 * What a deletion removes from the session item (purgeContent): the results, the recording's description (its objects
 * are deleted), the old layout's `transcript` copy, and what the join was told about the meeting: the prompts, the
 * results' e-mail address and the Daily meeting token (a credential; its end removes it already, setFields).
 */
const contentAttributes = [
  ...(
    [
      'qaPairs',
      'insights',
      'recordingFile',
      'email',
      'meetingToken',
      'analysisPrompt',
      'summaryFormatPrompt',
    ] as const
  ).map((f) => fieldToAttribute[f]),
  'transcript',
];

/** The members of bot_config that hold meeting text: the prompt, the greeting (often naming the candidate), the stop
 * phrase and the recording notice. Its name, voice, language and leave settings stay (they describe the bot). */
const botConfigContent: (keyof BotSession['botConfig'])[] = [
  'bot_prompt',
  'bot_greeting',
  'stop_phrase',
  'recording_notice_text',
];

type Updates = Pick<
  SessionsStore,
  | 'writeStep'
  | 'updateRunning'
  | 'addReplacement'
  | 'updateReplacement'
  | 'setFailedRecordingFile'
  | 'purgeContent'
>;

export function sessionUpdates(table: TableHandle): Updates {
  /** Sets `changes` while the session is in one of `states`; false when it is not. */
  async function setFields(
    botId: string,
    changes: Partial<Omit<BotSession, 'botId' | 'accountId'>>,
    states: readonly BotState[],
  ): Promise<boolean> {
    const names: Record<string, string> = {};
    const values: Record<string, unknown> = {};
    const sets: string[] = [];
    for (const [field, value] of Object.entries(changes)) {
      if (value === undefined) continue;
      names[`#f${sets.length}`] = fieldToAttribute[field as Field];
      values[`:v${sets.length}`] = toAttributeValue(field as Field, value);
      sets.push(`#f${sets.length} = :v${sets.length}`);
    }
    if (sets.length === 0) return true;
    // An ended session leaves the sparse running index, and drops its Daily meeting token: a credential, needed only
    // while a bot (or its replacement) may still join the room.
    const ends = changes.status !== undefined && changes.status !== 'running';
    const remove = ends
      ? ` REMOVE ${runningIndex.pk}, ${runningIndex.sk}, ${fieldToAttribute.meetingToken}`
      : '';
    return written(
      updateSession(table, botId, {
        UpdateExpression: `SET ${sets.join(', ')}${remove}`,
        ConditionExpression: inStates(states, names, values),
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
      }),
    );
  }

  return {
    writeStep: (botId, step) => setFields(botId, step.changes, step.leaves),
    updateRunning: (botId, changes) => setFields(botId, changes, runningStates),

    /** The `lose` step, appended only with exactly `attempt` replacements: one loss reported twice replaces once. */
    async addReplacement(botId, attempt, replacement) {
      const names = {};
      const values: Record<string, unknown> = { ':none': [], ':r': [replacementItem(replacement)] };
      if (attempt > 0) values[':n'] = attempt;
      return written(
        updateSession(table, botId, {
          UpdateExpression: 'SET replacements = list_append(if_not_exists(replacements, :none), :r)',
          ConditionExpression: `(${inStates(lifecycle.lose.from, names, values)}) AND ${
            attempt === 0 ? 'attribute_not_exists(replacements)' : 'size(replacements) = :n'
          }`,
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
        }),
      );
    },

    async updateReplacement(botId, index, changes) {
      if (!Number.isSafeInteger(index) || index < 0) throw new Error(`not a replacement index: ${index}`);
      const sets: string[] = [];
      const values: Record<string, unknown> = { ':running': 'running', ':index': index };
      if (changes.taskRef !== undefined) {
        sets.push(`replacements[${index}].task_ref = :task`, 'task_ref = :task');
        values[':task'] = changes.taskRef;
      }
      if (changes.joinedAt !== undefined) {
        sets.push(`replacements[${index}].joined_at = :joined`);
        values[':joined'] = changes.joinedAt;
      }
      if (sets.length === 0) return true;
      return written(
        updateSession(table, botId, {
          UpdateExpression: `SET ${sets.join(', ')}`,
          ConditionExpression: `attribute_exists(pk) AND #status = :running AND size(replacements) > :index`,
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: values,
        }),
      );
    },

    async setFailedRecordingFile(botId, file) {
      return written(
        updateSession(table, botId, {
          UpdateExpression: 'SET recording_file = :file',
          ConditionExpression:
            '#status = :failed AND attribute_not_exists(recording_file) AND attribute_not_exists(data_deleted_at)',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':file': file, ':failed': 'failed' },
        }),
      );
    },

    /** Only on a session marked deleted, so a slow deletion can never strip a session that was not asked to be. */
    async purgeContent(botId) {
      const names: Record<string, string> = {};
      const paths = contentAttributes.map((attr, n) => {
        names[`#a${n}`] = attr;
        return `#a${n}`;
      });
      const topLevel = {
        UpdateExpression: `REMOVE ${paths.join(', ')}`,
        ExpressionAttributeNames: { ...names },
      };
      names['#config'] = fieldToAttribute.botConfig;
      for (const [n, member] of botConfigContent.entries()) {
        names[`#c${n}`] = member;
        paths.push(`#config.#c${n}`);
      }
      const purged = await written(
        updateSession(table, botId, {
          UpdateExpression: `REMOVE ${paths.join(', ')}`,
          // A map path under a missing map is an error, so only with a bot_config map (every session is created with one).
          ConditionExpression: 'attribute_exists(data_deleted_at) AND attribute_type(#config, :map)',
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: { ':map': 'M' },
        }),
      );
      // None (an item written otherwise), or no tombstone: the top-level content still goes, only from a tombstone.
      if (!purged)
        await conditional(
          updateSession(table, botId, {
            ...topLevel,
            ConditionExpression: 'attribute_exists(data_deleted_at)',
          }),
        );
    },
  };
}
