// A stand-in for an OpenAI-compatible chat endpoint (POST /v1/chat/completions)
// that answers the CLI's three prompts deterministically:
// - merge: joins the entries and the incoming one with " + "
// - findPairs: names (first id, last id) when the slot has two or more entries
// - confirmPair: same thing, the newer invalidates the earlier
// `fail: true` answers HTTP 500 instead. `requests` records every call.
import http from 'node:http';

function answer(system, user) {
  if (/consolidate memory entries/i.test(system)) {
    const entries = [...user.matchAll(/^\d+\. \([^)]*\) (.*)$/gm)].map((m) => m[1]);
    const incoming = /^incoming: (.*)$/m.exec(user)?.[1];
    return { content: [...entries, incoming].join(' + '), contradicts: false };
  }
  if (/name pairs/i.test(system)) {
    const ids = [...user.matchAll(/id (\S+) \(/g)].map((m) => m[1]);
    return ids.length >= 2 ? { pairs: [{ earlier: ids[0], newer: ids[ids.length - 1] }] } : { pairs: [] };
  }
  return { sameThing: true, newerInvalidatesEarlier: true, reason: 'the newer entry replaces the earlier one' };
}

export async function startFakeLlm({ fail = false } = {}) {
  const requests = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      const parsed = JSON.parse(body || '{}');
      requests.push({ url: req.url, auth: req.headers.authorization, body: parsed });
      if (fail || req.url !== '/v1/chat/completions') {
        res.writeHead(fail ? 500 : 404, { 'content-type': 'text/plain' }).end('model unavailable');
        return;
      }
      const [system, user] = parsed.messages.map((m) => m.content);
      // Wrapped in a code fence, as models often do.
      const content = '```json\n' + JSON.stringify(answer(system, user)) + '\n```';
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ choices: [{ message: { role: 'assistant', content } }] }));
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${server.address().port}/v1`;
  return { url, requests, close: () => new Promise((r) => server.close(r)) };
}
