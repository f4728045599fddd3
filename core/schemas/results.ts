// The results of a session: its Q&A pairs and its insights (summary and evaluation), as the status view, the
// webhooks and the insights engines carry them.
import { z } from 'zod';

export const qaPairSchema = z
  .object({
    question: z.string(),
    answer: z.string(),
    asked_by: z.string().nullable().optional(),
    answered_by: z.string().nullable().optional(),
    asked_at: z.iso.datetime({ offset: true }).nullable().optional(),
  })
  .describe('A question and the answer that followed it.');
export type QaPair = z.infer<typeof qaPairSchema>;

/** How far a question was answered (the rubric: core/insights/rubric.ts). */
export const answeredLevels = ['yes', 'partly', 'no'] as const;
/** Which rubric `overall_score` follows: an interview's questions, a working meeting's outcomes, or nothing said. */
export const scoreBases = ['interview', 'meeting', 'none'] as const;

export const questionAssessmentSchema = z
  .object({
    question: z.string(),
    asked_by: z.string().nullable().optional(),
    answered_by: z.string().nullable().optional(),
    answered: z.enum(answeredLevels).describe('yes, partly, or no (no answer, or the question was dodged).'),
    quality: z.number().int().min(1).max(5).describe('1 (no substance) to 5 (specific, concrete, complete).'),
    evidence: z
      .string()
      .describe('A short quote from the answer that the assessment rests on; empty when nothing was said.'),
  })
  .describe('How one question was answered.');
export type QuestionAssessment = z.infer<typeof questionAssessmentSchema>;

export const insightsSchema = z
  .object({
    summary: z.string(),
    overall_score: z.number().min(0).max(100),
    strengths: z.array(z.string()),
    weaknesses: z.array(z.string()),
    topics: z.array(z.string()).optional(),
    action_items: z.array(z.string()).optional(),
    score_basis: z
      .enum(scoreBases)
      .optional()
      .describe('The rubric overall_score follows (an addition to the interface).'),
    question_assessments: z
      .array(questionAssessmentSchema)
      .optional()
      .describe('Each question put to the participants, in order (an addition).'),
    unanswered: z
      .array(z.string())
      .optional()
      .describe('Questions that got no answer or were dodged (an addition).'),
    engine_notes: z
      .array(z.string())
      .optional()
      .describe(
        'What the engine could not do or follow, in plain words: parts of the analysis or summary-format prompt, ' +
          'and for the rules engine what rules cannot judge (an addition).',
      ),
    engine: z
      .string()
      .optional()
      .describe(
        'Which engine produced these insights (an addition): `local-rules` (deterministic rules, no model), ' +
          '`bedrock:<model id>` (Amazon Bedrock) or `openai:<model>` (an OpenAI-compatible server).',
      ),
  })
  .describe('AI-generated insights: summary and evaluation.');
export type Insights = z.infer<typeof insightsSchema>;
