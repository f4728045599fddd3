// The results e-mail: subject with room and date; HTML and plain-text bodies with summary, evaluation, Q&A pairs
// and transcript. Everything from the meeting is escaped, so transcript text cannot inject markup.

import type { SessionWarningView } from '../schemas/bot-views';
import type { Insights, QaPair } from '../schemas/results';
import { escapeHtml } from './html';

export interface ResultsEmailInput {
  roomName: string;
  startedAt: string;
  completedAt: string;
  exitReason: string;
  durationSeconds: number;
  transcript: string;
  qaPairs: QaPair[];
  insights: Insights | null;
  insightsError?: string;
  /** What the bot had to do without (a failed model or voice): shown first, so a reader knows before reading on. */
  warnings?: SessionWarningView[];
}

const minutes = (s: number) => `${Math.max(1, Math.round(s / 60))} min`;

/** Subject-line text: no line breaks (header injection) and a bounded length. */
const oneLine = (s: string, max = 80) => s.replace(/[\r\n\t]+/g, ' ').slice(0, max);

export function renderResultsEmail(r: ResultsEmailInput): { subject: string; html: string; text: string } {
  const date = r.startedAt.slice(0, 10);
  const subject = `Meeting results: ${oneLine(r.roomName)} (${date})`;
  const ins = r.insights;
  const warnings = r.warnings ?? [];

  const text = [
    subject,
    `Duration: ${minutes(r.durationSeconds)} · ended by: ${r.exitReason}`,
    ...(warnings.length ? ['', 'WARNINGS', ...warnings.map((w) => `  ! ${w.message}`)] : []),
    '',
    'SUMMARY',
    ins?.summary ?? r.insightsError ?? 'Insights were not requested.',
    ...(ins
      ? [
          '',
          `EVALUATION: ${ins.overall_score}/100`,
          'Strengths:',
          ...ins.strengths.map((s) => `  + ${s}`),
          'Weaknesses:',
          ...ins.weaknesses.map((w) => `  - ${w}`),
        ]
      : []),
    '',
    `QUESTIONS AND ANSWERS (${r.qaPairs.length})`,
    ...r.qaPairs.flatMap((p, i) => [`${i + 1}. Q: ${p.question}`, `   A: ${p.answer}`]),
    '',
    'TRANSCRIPT',
    r.transcript || '(nothing was said)',
  ].join('\n');

  const list = (items: string[]) =>
    items.length ? `<ul>${items.map((i) => `<li>${escapeHtml(i)}</li>`).join('')}</ul>` : '<p>—</p>';
  const html = `<!doctype html><html><body style="font-family:system-ui,sans-serif;max-width:720px;margin:auto;color:#1c1e21">
<h1 style="font-size:20px">${escapeHtml(subject)}</h1>
<p style="color:#6b7280">Duration ${escapeHtml(minutes(r.durationSeconds))} · ended by ${escapeHtml(r.exitReason)}</p>
${warnings.length ? `<h2 style="font-size:16px">Warnings</h2>${list(warnings.map((w) => w.message))}` : ''}
<h2 style="font-size:16px">Summary</h2>
<p>${escapeHtml(ins?.summary ?? r.insightsError ?? 'Insights were not requested.').replace(/\n/g, '<br>')}</p>
${
  ins
    ? `<h2 style="font-size:16px">Evaluation: ${ins.overall_score}/100</h2><h3 style="font-size:14px">Strengths</h3>${list(ins.strengths)}<h3 style="font-size:14px">Weaknesses</h3>${list(ins.weaknesses)}`
    : ''
}
<h2 style="font-size:16px">Questions and answers (${r.qaPairs.length})</h2>
${r.qaPairs.map((p) => `<p><b>Q:</b> ${escapeHtml(p.question)}<br><b>A:</b> ${escapeHtml(p.answer)}</p>`).join('\n') || '<p>—</p>'}
<h2 style="font-size:16px">Transcript</h2>
<pre style="white-space:pre-wrap;font-family:inherit">${escapeHtml(r.transcript || '(nothing was said)')}</pre>
</body></html>`;
  return { subject, html, text };
}
