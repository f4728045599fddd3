// Questions that ask for one fact (a name, yes or no, a number, a date, a place): a short answer is a whole answer.
// The conversation engine does not follow it up, and the evaluation does not call it thin.
import { isYesNoQuestion } from '../insights/questions';
import { endsAsking } from '../insights/text';

export type FactKind = 'name' | 'yes-no' | 'number' | 'date' | 'place';

/** Lead-ins that wrap a question without changing what it asks ("Could you tell me where you are based?"). */
const wrapper =
  /^(?:(?:so|and|now|okay|ok|great|thanks|thank you|in other words|first|next|finally|lastly)[,.!]?\s+)*(?:(?:could|can|would|will)\s+you\s+(?:please\s+)?(?:tell|let)\s+(?:me|us)(?:\s+know)?\s+|please\s+tell\s+(?:me|us)\s+|(?:tell|let)\s+(?:me|us)(?:\s+know)?\s+|i(?:'d| would)\s+like\s+to\s+know\s+)?/i;
const patterns: [FactKind, RegExp][] = Object.entries({
  name: /^(?:what(?:'s|\s+is|\s+are)\s+(?:your|their)\s+(?:full\s+|first\s+|last\s+|preferred\s+)?names?|(?:your|their)\s+(?:full\s+|first\s+|preferred\s+)?names?$|who\s+am\s+i\s+speaking\s+(?:with|to)|what\s+(?:should|do|can|shall)\s+(?:i|we)\s+call\s+you|how\s+do\s+you\s+spell\s+your\s+name)\b/i,
  date: /^(?:when\b(?!.*\b(?:and|why|how)\b)|what\s+(?:date|day|year|month|time)\b|how\s+soon\b|(?:your|the)\s+(?:start\s+date|availability)$)/i,
  number:
    /^(?:how\s+(?:many|much|old|long|often|far)\b|what\s+(?:salary|rate|hourly\s+rate|day\s+rate|compensation|notice\s+period|budget)\b|what(?:'s|\s+is|\s+are)\s+(?:your|the)\s+(?:expected\s+|current\s+|desired\s+)?(?:salary|salary\s+expectations?|rate|hourly\s+rate|notice\s+period|budget|age|score|phone\s+number|number|team\s+size|years\s+of\s+experience)\b|(?:your|the)\s+(?:expected\s+)?(?:salary|notice\s+period|years\s+of\s+experience)$)/i,
  place:
    /^(?:where\b(?!.*\b(?:and|why|how)\b)|(?:which|what)\s+(?:city|country|town|state|region|location|office|time\s*zone)\b|(?:your|the)\s+location$)/i,
}) as [FactKind, RegExp][];

/**
 * What fact a question's last asking sentence asks for, or null when it asks for more ("When did you last fail,
 * and what did you learn?" asks for a story).
 */
export function factKind(question: string): FactKind | null {
  const asks = question.split(/(?<=[.!?])\s+/).filter(endsAsking);
  const last = (asks.at(-1) ?? question).replace(/[?!.\s"')\]]+$/, '');
  const core = last.replace(wrapper, '').trim();
  if (!core) return null;
  for (const [kind, pattern] of patterns) if (pattern.test(core)) return kind;
  // "Are you open to relocating?", "Do you have a work permit?": yes or no, unless it asks which, or for more.
  if (isYesNoQuestion(core) && !/\b(?:or|why|how|example|describe|explain|tell)\b/i.test(core))
    return 'yes-no';
  return null;
}

const month =
  /\b(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?|monday|tuesday|wednesday|thursday|friday|saturday|sunday|today|tomorrow|tonight|immediately|asap|right away|next\s+(?:week|month|year|\w+day)|(?:this|end of|the end of)\s+(?:week|month|year|quarter)|in\s+(?:a|an|one|two|three|four|five|six|\d+)\s+(?:days?|weeks?|months?))\b/i;
const number =
  /\d|\b(?:zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|forty|fifty|hundred|thousand|million|dozen|half|a\s+(?:few|couple))\b/i;
const yesOrNo =
  /^(?:(?:oh|um+|uh+|well|so),?\s+)*(?:yes|yeah|yep|yup|no|nope|nah|sure|of course|definitely|absolutely|not really|not yet|i (?:do|don't|did|didn't|have|haven't|am|'m not|am not|can|can't|will|won't|would|wouldn't)|correct|right|that's right)\b/i;

/** The answer states the kind of fact asked for (a name, yes or no, a number, a date, a place). */
export function givesFact(kind: FactKind, answer: string): boolean {
  const a = answer.trim();
  if (!/\p{L}|\d/u.test(a)) return false;
  switch (kind) {
    case 'name':
      return /\b(?:my name is|i'm|i am|it's|call me|this is)\b/i.test(a) || /\b\p{Lu}\p{Ll}+/u.test(a);
    case 'yes-no':
      return yesOrNo.test(a);
    case 'number':
      return number.test(a);
    case 'date':
      return month.test(a) || /\d/.test(a);
    case 'place':
      return (
        /\b\p{Lu}\p{Ll}+/u.test(a.replace(/^\p{Lu}/u, '')) ||
        /\b(?:remote|home|here|abroad|nearby|locally|city|country)\b/i.test(a) ||
        /^\p{Lu}\p{Ll}+/u.test(a)
      );
  }
}
