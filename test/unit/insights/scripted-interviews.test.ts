// Issue "offline interviewer", done when: on six scripted interviews (test/fixtures/insights/scripted-interviews.ts,
// played through the real local conversation engine), the offline summary mentions at least 80% of the facts
// planted in the answers, and the weakest answer (one word, or dodged) is among the weaknesses in each.
import { describe, expect, it } from 'vitest';
import { agendaOf } from '../../../core/engines/rules/conversation/agenda';
import { analyseLocally } from '../../../core/engines/rules/insights/local-engine';
import { playInterview, scriptedInterviews } from '../../fixtures/insights/scripted-interviews';

const mentioned = (summary: string, facts: readonly string[]) =>
  facts.filter((f) => summary.toLowerCase().includes(f.toLowerCase()));

describe('six scripted interviews, summarised and judged offline', () => {
  const results = scriptedInterviews.map((s) => ({
    s,
    played: playInterview(s),
  }));

  it.each(scriptedInterviews.map((s) => [s.name, s] as const))('%s', async (_name, s) => {
    const { transcript, closed } = await results.find((r) => r.s === s)!.played;
    // The interview itself: every question of the prompt asked, and the bot closed it.
    expect(closed).toBe(true);
    const asked = transcript.filter((u) => u.is_bot).map((u) => u.text);
    for (const t of agendaOf(s.prompt).topics) expect(asked).toContain(t.question);
    expect(asked).toContain(s.weakest);

    const insights = analyseLocally({ utterances: transcript, botName: s.botName, processInsights: true })
      .insights!;
    const hits = mentioned(insights.summary, s.facts);
    expect(
      hits.length / s.facts.length,
      `missing: ${s.facts.filter((f) => !hits.includes(f))}`,
    ).toBeGreaterThanOrEqual(0.8);
    // A digest per question, then the closing.
    expect(insights.summary).toMatch(new RegExp(`^${s.botName} interviewed ${s.candidate} \\(\\d questions`));
    expect(insights.summary).toContain(`On "${s.weakest}"`);

    // The weakest answer is named first among the weaknesses, as a sentence about that question.
    expect(insights.weaknesses[0]).toContain(`"${s.weakest}"`);
    // Sentences a person would write: no debug output, every one grounded in a quote or a figure.
    for (const line of [...insights.strengths, ...insights.weaknesses]) {
      expect(line).not.toMatch(/named: |fillers per 100 words in|\(quality \d/);
      expect(line).toMatch(/"[^"]+"|\d/);
    }
    // A strong answer is never called the least specific without saying it was still strong.
    for (const w of insights.weaknesses)
      if (/least detailed/.test(w)) expect(w).toMatch(/still specific|no /);
  });

  it('mentions at least 80% of all planted facts together', async () => {
    let hit = 0;
    let all = 0;
    for (const { s, played } of results) {
      const { transcript } = await played;
      const { summary } = analyseLocally({
        utterances: transcript,
        botName: s.botName,
        processInsights: true,
      }).insights!;
      hit += mentioned(summary, s.facts).length;
      all += s.facts.length;
    }
    expect(hit / all).toBeGreaterThanOrEqual(0.8);
  });
});
