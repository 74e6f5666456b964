// A tiny static server for the browser assistant: the page at /, the built
// package (pkg/) at /credence/. No dependencies, loopback only.
//
//   npm run build && node examples/browser-assistant/serve.mjs [port]
//
// Tests import `serve()` and add their own mounts.
import { createServer } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { extname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));
export const PKG_DIR = resolve(process.env.CREDENCE_PKG_DIR ?? join(here, '..', '..', 'pkg'));

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.wasm': 'application/wasm', // instantiateStreaming needs this exact type
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
  '.map': 'application/json; charset=utf-8',
  '.ts': 'text/plain; charset=utf-8',
};

/** Maps a URL path to a file under one of the mounts (longest prefix wins), or null. */
async function locate(mounts, pathname) {
  const prefix = Object.keys(mounts)
    .filter((p) => pathname.startsWith(p))
    .sort((a, b) => b.length - a.length)[0];
  if (prefix === undefined) return null;
  const root = resolve(mounts[prefix]);
  let file = resolve(root, '.' + sep + decodeURIComponent(pathname.slice(prefix.length)));
  if (file !== root && !file.startsWith(root + sep)) return null; // no ../ escapes
  const info = await stat(file).catch(() => null);
  if (info?.isDirectory()) file = join(file, 'index.html');
  return (await stat(file).catch(() => null))?.isFile() ? file : null;
}

/**
 * Starts the server; resolves with { url, close() }.
 * @param {{ port?: number, host?: string, mounts?: Record<string, string> }} [options]
 *   `mounts` maps URL prefixes (ending in "/") to directories, added to the defaults.
 */
export function serve({ port = 0, host = '127.0.0.1', mounts = {} } = {}) {
  const all = { '/': here, '/credence/': PKG_DIR, ...mounts };
  const server = createServer(async (req, res) => {
    try {
      const { pathname } = new URL(req.url ?? '/', 'http://localhost');
      const file = req.method === 'GET' || req.method === 'HEAD' ? await locate(all, pathname) : null;
      if (!file) {
        res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end(`not found: ${pathname}\n`);
        return;
      }
      const body = await readFile(file);
      res.writeHead(200, {
        'content-type': TYPES[extname(file)] ?? 'application/octet-stream',
        'content-length': body.length,
        'cache-control': 'no-store',
      });
      res.end(req.method === 'HEAD' ? undefined : body);
    } catch (err) {
      res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end(String(err));
    }
  });
  return new Promise((ok, fail) => {
    server.once('error', fail);
    server.listen(port, host, () => {
      const { port: bound } = server.address();
      ok({ url: `http://${host}:${bound}/`, close: () => new Promise((done) => server.close(done)) });
    });
  });
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const port = Number(process.argv[2] ?? process.env.PORT ?? 8080);
  const built = await stat(join(PKG_DIR, 'index.browser.js')).catch(() => null);
  if (!built) console.warn(`warning: ${PKG_DIR}/index.browser.js is missing; run \`npm run build\` first`);
  const { url } = await serve({ port });
  console.log(`browser assistant: ${url}  (package from ${PKG_DIR} at /credence/; Ctrl-C to stop)`);
}
