// The local results e-mails, one click away: GET /mail lists the mails the local SES accepted, newest first
// (HTML, or JSON for `Accept: application/json`); GET /mail/<id> shows one as its recipient sees it, with its text
// part. The mail's own HTML is shown in a sandboxed frame: no script of it runs, nothing of it reaches this page.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { escapeHtml } from '../core/mail/html';
import { send, sendError, sendJson } from './http';

export interface LocalMail {
  messageId: string;
  from: string;
  destination: { to: string[] };
  subject: string;
  body: { html?: string; text?: string };
  /** When it was sent, in whole seconds since the epoch (aws-ses-v2-local's `getCurrentTimestamp`). */
  at: number;
}

export function mailViewer(mails: () => readonly LocalMail[]) {
  return async function handle(req: IncomingMessage, res: ServerResponse): Promise<boolean> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const parts = url.pathname.split('/').filter(Boolean);
    if (parts[0] !== 'mail' || req.method !== 'GET' || parts.length > 2) return false;
    // The store appends (oldest first); its times are whole seconds, too coarse to order mails sent together.
    const newestFirst = [...mails()].reverse();
    if (parts.length === 1) {
      if (String(req.headers.accept ?? '').includes('application/json')) {
        return sendJson(res, 200, { mails: newestFirst.map(summary) });
      }
      return send(res, 200, 'text/html; charset=utf-8', listPage(newestFirst));
    }
    const mail = newestFirst.find((m) => m.messageId === decodeURIComponent(parts[1]!));
    if (!mail)
      return sendError(res, 404, 'not_found', `no mail ${parts[1]} in the local store`, 'Not found.');
    return send(res, 200, 'text/html; charset=utf-8', mailPage(mail));
  };
}

const sentAt = (m: LocalMail) => new Date(m.at * 1000).toISOString();

const summary = (m: LocalMail) => ({
  id: m.messageId,
  to: m.destination.to,
  from: m.from,
  subject: m.subject,
  sent_at: sentAt(m),
  url: `/mail/${encodeURIComponent(m.messageId)}`,
});

const page = (title: string, body: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>
<style>body{font-family:system-ui,sans-serif;margin:2rem;max-width:60rem}td,th{padding:.3rem .8rem;text-align:left}
iframe{width:100%;height:32rem;border:1px solid #ccc}pre{white-space:pre-wrap;background:#f6f6f6;padding:1rem}</style>
<script>function fitFrame(f){try{f.style.height=f.contentDocument.documentElement.scrollHeight+24+'px'}catch{}}</script>
</head><body>${body}</body></html>`;

function listPage(mails: readonly LocalMail[]): string {
  const rows = mails
    .map(
      (m) =>
        `<tr><td>${escapeHtml(sentAt(m))}</td><td>${escapeHtml(m.destination.to.join(', '))}</td>` +
        `<td><a href="/mail/${encodeURIComponent(m.messageId)}">${escapeHtml(m.subject)}</a></td></tr>`,
    )
    .join('');
  return page(
    'Local mail',
    `<h1>Mails sent by the local stack</h1><p>${mails.length} mail(s), newest first (the newest 500 are kept).</p>` +
      `<table><tr><th>sent</th><th>to</th><th>subject</th></tr>${rows}</table>`,
  );
}

function mailPage(m: LocalMail): string {
  return page(
    m.subject,
    `<p><a href="/mail">← all mail</a></p><h1>${escapeHtml(m.subject)}</h1>` +
      `<p>From ${escapeHtml(m.from)} to ${escapeHtml(m.destination.to.join(', '))}, ${escapeHtml(sentAt(m))}</p>` +
      // allow-same-origin without allow-scripts: nothing of the mail runs, and this page may read its height to show
      // the whole mail instead of a fixed-height window onto it.
      `<h2>HTML part</h2><iframe sandbox="allow-same-origin" title="HTML part" onload="fitFrame(this)" srcdoc="${escapeHtml(m.body.html ?? '')}"></iframe>` +
      `<h2>Text part</h2><pre>${escapeHtml(m.body.text ?? '')}</pre>`,
  );
}
