// How the evaluation names what an answer gave or lacked, in the words of the role: what a software interview calls a
// "named tool" and an "outcome" is a "name" and a "result" for a nurse, a chef or a teacher.

/** Words of software work; two different ones in the questions and answers make the interview a software one. */
const softwareTerms =
  /\b(?:code|coding|software|deploy\w*|apis?|bugs?|debug\w*|frontend|backend|microservices?|kubernetes|docker|aws|sql|databases?|repos?|repository|git|github|pull requests?|ci|pipelines?|programming|programmers?|developers?|engineers?|engineering|devops|python|java|typescript|javascript|react|kafka|terraform|latency|servers?|on-call|unit tests?|integration tests?|web app|frameworks?)\b/gi;

export interface RoleWords {
  software: boolean;
  /** A named thing an answer gives: "named tool", or "name". */
  named: string;
  /** What came of the work: "outcome", or "result". */
  result: string;
}

/** The words for a conversation, from what was asked and answered in it. */
export function roleWords(texts: Iterable<string>): RoleWords {
  const seen = new Set<string>();
  for (const text of texts) for (const m of text.matchAll(softwareTerms)) seen.add(m[0].toLowerCase());
  const software = seen.size >= 2;
  return software
    ? { software, named: 'named tool', result: 'outcome' }
    : { software, named: 'name', result: 'result' };
}
