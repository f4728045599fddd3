// The page a person opens at a local room URL: join, see who is there and the live transcript, talk, hear the bot.

import { escapeHtml } from '../../core/mail/html';
import { voices } from '../../core/voices';

export function roomPageHtml(roomName: string): string {
  const name = JSON.stringify(roomName).replace(/</g, '\\u003c');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Local room · ${escapeHtml(roomName)}</title>
<style>
  body { font: 15px/1.45 system-ui, sans-serif; margin: 0; background: #f6f7f9; color: #1c1e21; }
  header { background: #1f2937; color: #fff; padding: 12px 20px; display: flex; gap: 12px; align-items: center; }
  header h1 { font-size: 17px; margin: 0; flex: 1; }
  main { display: grid; grid-template-columns: 240px 1fr; gap: 16px; padding: 16px 20px; max-width: 1100px; }
  section { background: #fff; border: 1px solid #e3e5e8; border-radius: 8px; padding: 12px 14px; }
  h2 { font-size: 13px; text-transform: uppercase; letter-spacing: .04em; color: #6b7280; margin: 0 0 8px; }
  ul { list-style: none; margin: 0; padding: 0; }
  li.p { padding: 4px 0; display: flex; gap: 6px; align-items: center; }
  button.remove { margin-left: auto; padding: 0 6px; font-size: 12px; }
  .tag { font-size: 11px; background: #e5e7eb; border-radius: 4px; padding: 0 5px; }
  .tag.bot { background: #dbeafe; } .speaking { color: #059669; font-weight: 600; }
  #transcript { height: 52vh; overflow-y: auto; }
  #transcript div { padding: 3px 0; } #transcript b { margin-right: 6px; } #transcript .bot b { color: #1d4ed8; }
  #transcript .sys { color: #6b7280; font-size: 13px; }
  #transcript .live::after { content: ' 🔊 speaking…'; color: #059669; font-size: 12px; }
  #transcript .cut::after { content: ' (cut off)'; color: #b45309; font-size: 12px; }
  #rec { background: #dc2626; color: #fff; border-radius: 4px; padding: 1px 8px; font-size: 13px; font-weight: 600; }
  form { display: flex; gap: 8px; margin-top: 10px; } input[type=text] { flex: 1; padding: 8px; border: 1px solid #d1d5db; border-radius: 6px; }
  button { padding: 8px 12px; border-radius: 6px; border: 1px solid #d1d5db; background: #fff; cursor: pointer; }
  button.primary { background: #2563eb; color: #fff; border-color: #2563eb; } button:disabled { opacity: .5; cursor: default; }
  #join { max-width: 420px; margin: 48px auto; }
  [hidden] { display: none !important; } /* main's display: grid would otherwise show the call before joining */
  #lobby { margin: 12px 20px 0; max-width: 1060px; background: #fef3c7; border-color: #fcd34d; }
  #lobby div { padding: 4px 0; } #lobby button { padding: 2px 10px; margin: 0 4px; }
</style>
</head>
<body>
<header><h1>Local room: <span id="room"></span></h1><span id="rec" hidden title="A bot in this room records its audio">● Recording</span><span id="status">not joined</span><button id="leave" disabled>Leave</button></header>
<section id="join">
  <h2>Join this room</h2>
  <form id="joinForm"><input type="text" id="name" placeholder="Your name" required maxlength="100"><button class="primary">Join</button></form>
  <p class="sys" id="joinError"></p>
</section>
<section id="lobby" hidden aria-live="polite"></section>
<main id="call" hidden>
  <section><h2>In the room</h2><ul id="people"></ul></section>
  <section>
    <h2>Transcript</h2>
    <div id="transcript" aria-live="polite"></div>
    <form id="sayForm"><input type="text" id="line" placeholder="Type what you say and press Enter" autocomplete="off"><button class="primary">Say</button><button type="button" id="mic"><svg aria-hidden="true" width="12" height="14" viewBox="0 0 12 14"><rect x="3.5" y="0.5" width="5" height="8" rx="2.5" fill="currentColor"/><path d="M1.5 6.5a4.5 4.5 0 0 0 9 0M6 11v2.5" stroke="currentColor" fill="none"/></svg> Speak</button><button type="button" id="audio" aria-pressed="false" title="Send your microphone to the room (a recording bot records it)">Microphone</button></form>
  </section>
</main>
<script>
const roomName = ${name};
const $ = (id) => document.getElementById(id);
$('room').textContent = roomName;
let ws, me, people = new Map(), waiting = new Map();
// Bots recording the room; each bot's line being spoken (marked until its speech ends, or is cut off).
let recorders = new Set(); const speakingLine = new Map();
function renderRecording() { $('rec').hidden = recorders.size === 0; }
const params = new URLSearchParams(location.search);

function line(cls, who, text) {
  const div = document.createElement('div');
  div.className = cls;
  if (who) { const b = document.createElement('b'); b.textContent = who + ':'; div.append(b); }
  div.append(document.createTextNode(text));
  $('transcript').append(div);
  $('transcript').scrollTop = $('transcript').scrollHeight;
  return div;
}
function renderPeople() {
  const ul = $('people'); ul.textContent = '';
  for (const p of people.values()) {
    const li = document.createElement('li'); li.className = 'p' + (p.speaking ? ' speaking' : '');
    li.append(document.createTextNode(p.name + (p.id === me ? ' (you)' : '')));
    const tag = document.createElement('span'); tag.className = 'tag ' + p.kind; tag.textContent = p.kind; li.append(tag);
    if (p.id !== me) {
      // As the room's owner would: POST /rooms/<name>/participants/<id>/eject.
      const remove = document.createElement('button'); remove.className = 'remove'; remove.textContent = 'Remove';
      remove.title = 'Remove ' + p.name + ' from the room';
      remove.onclick = () => fetch('/rooms/' + encodeURIComponent(roomName) + '/participants/' + encodeURIComponent(p.id) + '/eject', { method: 'POST' });
      li.append(remove);
    }
    ul.append(li);
  }
}
// A knocking room: whoever asks to join, each with Admit / Deny (POST /rooms/<name>/lobby/<id>/admit or /deny).
function renderLobby() {
  const box = $('lobby'); box.textContent = '';
  for (const p of waiting.values()) {
    const div = document.createElement('div'); div.className = 'knock';
    div.append(document.createTextNode(p.name + ' is asking to join — '));
    for (const [label, answer] of [['Admit', 'admit'], ['Deny', 'deny']]) {
      const b = document.createElement('button'); b.textContent = label; b.className = answer === 'admit' ? 'primary admit' : 'deny';
      b.onclick = () => fetch('/rooms/' + encodeURIComponent(roomName) + '/lobby/' + encodeURIComponent(p.id) + '/' + answer, { method: 'POST' });
      div.append(b);
      if (answer === 'admit') div.append(document.createTextNode(' / '));
    }
    box.append(div);
  }
  box.hidden = waiting.size === 0;
}
// The bot's Polly voice → the closest voice this browser has: same name, else same language and gender, else language.
const pollyVoices = ${JSON.stringify(voices)};
function speak(text, voiceId) {
  if (!('speechSynthesis' in window)) return;
  const u = new SpeechSynthesisUtterance(text);
  const voices = speechSynthesis.getVoices();
  const want = pollyVoices[voiceId];
  const gender = (v) => (/female|woman|samantha|victoria|karen|moira|tessa|zira|susan/i.test(v.name) ? 'female' : /male|man|daniel|alex|fred|david|mark|george/i.test(v.name) ? 'male' : '');
  const match =
    voices.find((v) => voiceId && v.name.includes(voiceId)) ||
    (want && voices.find((v) => v.lang === want.language && gender(v) === want.gender)) ||
    (want && voices.find((v) => v.lang === want.language)) ||
    (want && voices.find((v) => v.lang.startsWith(want.language.slice(0, 2))));
  if (match) u.voice = match;
  if (want) u.lang = want.language;
  speechSynthesis.speak(u);
}
$('joinForm').onsubmit = (e) => {
  e.preventDefault();
  const proto = location.protocol === 'https:' ? 'wss' : 'ws';
  const q = new URLSearchParams({ name: $('name').value, kind: 'human' });
  if (params.get('token')) q.set('token', params.get('token'));
  let gone = ''; // set when the room removed us: shown instead of 'left'
  ws = new WebSocket(proto + '://' + location.host + '/rooms/' + encodeURIComponent(roomName) + '/ws?' + q);
  ws.onmessage = (m) => {
    const e = JSON.parse(m.data);
    if (e.type === 'error') { gone = 'denied'; $('joinError').textContent = e.message; return; }
    if (e.type === 'lobby') { $('status').textContent = 'asking to join'; $('joinError').textContent = 'Asking to join — waiting for someone in the room to let you in.'; $('joinForm').querySelector('button').disabled = true; $('leave').disabled = false; return; }
    if (e.type === 'welcome') {
      me = e.participant_id; people = new Map(e.participants.map((p) => [p.id, p]));
      waiting = new Map((e.lobby || []).map((p) => [p.id, p])); renderLobby(); $('joinError').textContent = '';
      $('join').hidden = true; $('call').hidden = false; $('leave').disabled = false; $('status').textContent = 'joined';
      for (const l of e.log) if (l.type === 'utterance' && l.final) line(people.get(l.participant_id)?.kind === 'bot' ? 'bot' : '', l.name, l.text);
      recorders = new Set(e.recorders || []); renderRecording();
      renderPeople(); $('line').focus();
    } else if (e.type === 'participant-joined') { people.set(e.participant.id, e.participant); line('sys', '', e.participant.name + ' joined'); renderPeople(); }
    else if (e.type === 'participant-left') { const p = people.get(e.participant_id); people.delete(e.participant_id); if (p) line('sys', '', p.name + ' left'); renderPeople(); }
    else if (e.type === 'utterance' && e.final) {
      const p = people.get(e.participant_id); const isBot = p && p.kind === 'bot';
      const div = line(isBot ? 'bot' : '', e.name, e.text);
      // Only what the bot said aloud is spoken here: a line it wrote (its voice failed) stays a chat line. While the
      // bot speaks it, the line says so; a line someone talked over is marked cut off, and its voice stops.
      if (isBot && e.participant_id !== me && e.voice) {
        if (p.speaking) { div.classList.add('live'); speakingLine.set(e.participant_id, div); }
        speak(e.text, e.voice);
      }
    } else if (e.type === 'speaking') {
      const p = people.get(e.participant_id); if (p) { p.speaking = e.active; renderPeople(); }
      const div = speakingLine.get(e.participant_id);
      if (div && !e.active) { div.classList.remove('live'); if (e.cut) div.classList.add('cut'); speakingLine.delete(e.participant_id); }
      if (e.cut && 'speechSynthesis' in window) speechSynthesis.cancel();
    } else if (e.type === 'recording') {
      if (e.active) recorders.add(e.participant_id); else recorders.delete(e.participant_id);
      const p = people.get(e.participant_id);
      if (p) line('sys', '', p.name + (e.active ? ' is recording this meeting.' : ' stopped recording.'));
      renderRecording();
    }
    else if (e.type === 'waiting-participant-added') { waiting.set(e.participant.id, e.participant); renderLobby(); }
    else if (e.type === 'waiting-participant-removed') { waiting.delete(e.participant_id); renderLobby(); }
    else if (e.type === 'ejected' || e.type === 'room-closed') { gone = e.type === 'ejected' ? 'removed' : 'room closed'; line('sys', '', e.message); if (!me) $('joinError').textContent = e.message; }
  };
  ws.onclose = () => {
    $('status').textContent = gone || 'left'; $('leave').disabled = true; waiting.clear(); renderLobby();
    // Out of the room: nobody is listed as being with you, and nothing can be said into it any more.
    if (me) line('sys', '', gone ? 'You are no longer in the room.' : 'You left the room.');
    people.clear(); renderPeople(); microphoneOff(); recorders.clear(); renderRecording();
    for (const el of $('sayForm').elements) el.disabled = true;
  };
};
$('sayForm').onsubmit = (e) => {
  e.preventDefault();
  const text = $('line').value.trim(); if (!text || !ws) return;
  // Talking over the bot is the bot's to handle: it stops for an answer (its voice here stops with it), not for "sure".
  ws.send(JSON.stringify({ type: 'speaking', active: true }));
  ws.send(JSON.stringify({ type: 'say', text }));
  ws.send(JSON.stringify({ type: 'speaking', active: false }));
  $('line').value = '';
};
// The microphone: its audio goes to the room as 16 kHz 16-bit PCM in binary messages; a bot that records mixes it in.
let mic;
async function microphoneOn() {
  const stream = await navigator.mediaDevices.getUserMedia({ audio: { echoCancellation: true, noiseSuppression: true } });
  const ctx = new AudioContext();
  const source = ctx.createMediaStreamSource(stream);
  const tap = ctx.createScriptProcessor(4096, 1, 1);
  const mute = ctx.createGain(); mute.gain.value = 0;
  const ratio = ctx.sampleRate / 16000;
  tap.onaudioprocess = (ev) => {
    if (!ws || ws.readyState !== 1) return;
    const input = ev.inputBuffer.getChannelData(0);
    const out = new Int16Array(Math.floor(input.length / ratio));
    for (let i = 0; i < out.length; i++) {
      const from = Math.floor(i * ratio), to = Math.min(input.length, Math.floor((i + 1) * ratio));
      let sum = 0; for (let j = from; j < to; j++) sum += input[j];
      const v = sum / Math.max(1, to - from);
      out[i] = Math.max(-32768, Math.min(32767, Math.round(v * 32767)));
    }
    ws.send(out.buffer);
  };
  source.connect(tap); tap.connect(mute); mute.connect(ctx.destination);
  mic = { stream, ctx };
}
function microphoneOff() {
  if (!mic) return;
  for (const t of mic.stream.getTracks()) t.stop();
  void mic.ctx.close(); mic = undefined;
}
$('audio').onclick = async () => {
  const b = $('audio');
  if (mic) { microphoneOff(); b.textContent = 'Microphone'; b.setAttribute('aria-pressed', 'false'); return; }
  try { await microphoneOn(); b.textContent = 'Microphone on'; b.setAttribute('aria-pressed', 'true'); }
  catch (err) { line('sys', '', 'The microphone is not available: ' + err.message); }
};
$('leave').onclick = () => { ws && ws.send(JSON.stringify({ type: 'leave' })); };
const micLabel = $('mic').innerHTML;
const Recognition = window.SpeechRecognition || window.webkitSpeechRecognition;
if (!Recognition) $('mic').hidden = true;
else {
  let rec;
  $('mic').onclick = () => {
    if (rec) { rec.stop(); rec = null; $('mic').innerHTML = micLabel; return; }
    rec = new Recognition(); rec.continuous = true; rec.interimResults = true;
    rec.onspeechstart = () => ws && ws.send(JSON.stringify({ type: 'speaking', active: true }));
    rec.onspeechend = () => ws && ws.send(JSON.stringify({ type: 'speaking', active: false }));
    rec.onresult = (ev) => { for (let i = ev.resultIndex; i < ev.results.length; i++) if (ev.results[i].isFinal) ws.send(JSON.stringify({ type: 'say', text: ev.results[i][0].transcript })); };
    rec.start(); $('mic').textContent = '■ Stop';
  };
}
</script>
</body>
</html>`;
}
