// The README, run by a newcomer (issue 45): an empty temporary folder, the
// packed tarball installed there with the README's own install command, then
// every fenced code block of README.md run against the installed package.
//
//   node js-tests/newcomer/readme-blocks.mjs <credence-x.y.z.tgz> [README.md]
//
// - `js`/`mjs` blocks run as ES modules in that folder. The blocks of one
//   section (the nearest `##`/`###` heading) run together, in order, as one
//   module: a block may use what an earlier block of its section declared.
//   Their `import` lines are merged and hoisted. A section whose code uses
//   `memory` without declaring it starts with `const memory = new Memory()`,
//   as the README says the snippets continue from one.
// - `sh`/`bash` blocks run with `bash -e -o pipefail` in that folder, with its
//   node_modules/.bin on PATH and HOME in the folder (so `npx credence …` and
//   the CLI's default bundle stay inside it); `json` blocks must parse.
// - `<!-- newcomer: skip (reason) -->` on the line before a block skips it;
//   the reason is required. `<!-- newcomer: browser -->` runs the block's
//   section with fake-indexeddb's globals standing in for a page.
// - Any other language, a marker without a reason, an unknown marker, a
//   relative link (the README is also the package page, where only absolute
//   URLs resolve) or an `#anchor` naming no heading fails the run.
// The Belief section (between `<!-- belief:start -->` and `<!-- belief:end -->`)
// is run like every other section; only its links are not checked here.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const tarball = process.argv[2] && resolve(process.argv[2]);
const readmePath = resolve(process.argv[3] ?? join(ROOT, 'README.md'));
if (!tarball || !existsSync(tarball)) {
  console.error('usage: node js-tests/newcomer/readme-blocks.mjs <credence-x.y.z.tgz> [README.md]');
  process.exit(2);
}

const RUN_JS = new Set(['js', 'mjs', 'javascript']);
const RUN_SH = new Set(['sh', 'bash', 'shell']);
const PARSE_JSON = new Set(['json']);

/** Fenced blocks with their section, language, line and marker; headings; links. */
export function parseReadme(text) {
  const lines = text.split('\n');
  const blocks = [];
  const headings = [];
  const links = [];
  const problems = [];
  let section = '(top)';
  let inBelief = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (line.includes('<!-- belief:start -->')) inBelief = true;
    if (line.includes('<!-- belief:end -->')) inBelief = false;
    const fence = /^(`{3,})\s*([\w-]*)\s*$/.exec(line);
    if (fence) {
      const start = i;
      const body = [];
      for (i++; i < lines.length && lines[i] !== fence[1]; i++) body.push(lines[i]);
      let j = start - 1;
      while (j >= 0 && lines[j].trim() === '') j--;
      const markerLine = j >= 0 ? lines[j].trim() : '';
      let marker = null;
      if (markerLine.startsWith('<!-- newcomer:')) {
        const m = /^<!-- newcomer: (skip \((.+)\)|browser) -->$/.exec(markerLine);
        if (!m) problems.push(`line ${j + 1}: a newcomer marker is "<!-- newcomer: skip (reason) -->" or "<!-- newcomer: browser -->": ${markerLine}`);
        else marker = m[2] ? { skip: m[2] } : { browser: true };
      }
      blocks.push({ section, lang: fence[2].toLowerCase(), line: start + 1, code: body.join('\n'), marker });
      continue;
    }
    const h = /^(#{1,6})\s+(.*)$/.exec(line);
    if (h) {
      headings.push(h[2]);
      if (h[1].length <= 3) section = h[2];
    }
    if (!inBelief) {
      const stripped = line.replace(/`[^`]*`/g, '');
      for (const m of stripped.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) links.push({ target: m[1], line: i + 1 });
      for (const m of stripped.matchAll(/\b(?:src|href)="([^"]+)"/g)) links.push({ target: m[1], line: i + 1 });
    }
  }
  return { blocks, headings, links, problems };
}

/** GitHub's anchor for each heading (lower case, punctuation dropped, spaces to dashes, duplicates numbered). */
export function anchors(headings) {
  const seen = new Map();
  const out = new Set();
  for (const h of headings) {
    const text = h.replace(/`/g, '').replace(/\[([^\]]*)\]\([^)]*\)/g, '$1');
    let slug = text.toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    if (n) slug = `${slug}-${n}`;
    out.add(slug);
  }
  return out;
}

// `expr;  // "text"`, `expr;  // 12` or `// true`: the README states what the expression
// is, so the module checks it (`…` in the text stands for anything).
const STATED = /^(\s*)(?!(?:const|let|var|import|export|return)\s)([^/\s].*?);\s*\/\/\s*(?:"([^"]*)"|(-?\d+(?:\.\d+)?|true|false|null))(?=[\s,—]|$)/;
function checked(line, blockLine) {
  const m = STATED.exec(line);
  if (!m) return line;
  const expected = m[3] !== undefined ? JSON.stringify(m[3]) : m[4];
  return `${m[1]}__stated(${m[2]}, ${expected}, ${JSON.stringify(`README.md block at line ${blockLine}: ${m[2]}`)});`;
}
function __stated(actual, expected, where) {
  const pattern = typeof expected === 'string' && new RegExp(`^${expected.split('…').map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('[\\s\\S]*')}$`);
  const ok = typeof expected !== 'string' ? actual === expected : typeof actual === 'string' && pattern.test(actual);
  if (!ok) throw new Error(`${where}: the README says ${JSON.stringify(expected)}, the package answers ${JSON.stringify(actual)}`);
}
const STATED_HELPER = __stated.toString();

/** One ES module from a section's js blocks: imports merged and hoisted, `memory` provided when used undeclared. */
export function moduleFor(blocks, { browser }) {
  const named = new Map(); // specifier → Set of "a" / "a as b"
  const other = new Set(); // default / namespace / side-effect imports, verbatim
  const body = [];
  for (const b of blocks) {
    body.push(`// README.md line ${b.line}`);
    for (const line of b.code.split('\n')) {
      const m = /^import\s+\{([^}]*)\}\s+from\s+(['"][^'"]+['"]);?\s*(\/\/.*)?$/.exec(line);
      if (m) {
        const set = named.get(m[2]) ?? new Set();
        for (const n of m[1].split(',').map((s) => s.trim()).filter(Boolean)) set.add(n);
        named.set(m[2], set);
      } else if (/^import\s/.test(line)) {
        other.add(line.replace(/\s*\/\/.*$/, ''));
      } else {
        body.push(checked(line, b.line));
      }
    }
  }
  const code = body.join('\n');
  const declaresMemory = /\b(?:const|let|var)\s+memory\b/.test(code);
  const prelude = [];
  if (!declaresMemory && /\bmemory\b/.test(code)) {
    const set = named.get("'credence'") ?? named.get('"credence"') ?? new Set();
    set.add('Memory');
    if (!named.has('"credence"')) named.set("'credence'", set);
    prelude.push('const memory = new Memory(); // the README: "the snippets below continue from a `memory`"');
  }
  // `Memory` as the Sixty seconds section imported it, when a later section uses it without an import.
  const importsMemory = [...named.values()].some((set) => [...set].some((n) => n === 'Memory' || n.endsWith(' as Memory')));
  if (/\bMemory\b/.test(code) && !importsMemory) {
    const set = named.get("'credence'") ?? named.get('"credence"') ?? new Set();
    set.add('Memory');
    if (!named.has('"credence"')) named.set("'credence'", set);
  }
  const imports = [];
  if (browser) imports.push(`import ${JSON.stringify(pathToFileURL(join(ROOT, 'node_modules/fake-indexeddb/auto/index.mjs')).href)};`);
  imports.push(...other);
  for (const [spec, set] of named) imports.push(`import { ${[...set].join(', ')} } from ${spec};`);
  return [...imports, STATED_HELPER, ...prelude, code, ''].join('\n');
}

const text = readFileSync(readmePath, 'utf8');
const { blocks, headings, links, problems } = parseReadme(text);
const known = anchors(headings);
for (const { target, line } of links) {
  if (/^(https?:|mailto:)/.test(target)) continue;
  if (target.startsWith('#')) {
    if (!known.has(target.slice(1))) problems.push(`line ${line}: no heading has the anchor ${target}`);
    continue;
  }
  problems.push(`line ${line}: relative link ${target} (it breaks on the package page: use an absolute URL built from the package's repository field)`);
}

const dir = mkdtempSync(join(tmpdir(), 'credence-newcomer-'));
const env = {
  ...process.env,
  HOME: dir,
  CREDENCE_BUNDLE_DIR: join(dir, 'bundle'),
  PATH: `${join(dir, 'node_modules/.bin')}:${process.env.PATH}`,
  npm_config_audit: 'false',
  npm_config_fund: 'false',
  npm_config_update_notifier: 'false',
};
let ran = 0;
let skipped = 0;
let failed = 0;
const t0 = Date.now();
function report(ok, what, detail = '') {
  if (ok) {
    ran++;
    console.log(`ok   ${what}`);
  } else {
    failed++;
    console.log(`FAIL ${what}\n     ${String(detail).trim().split('\n').slice(-25).join('\n     ')}`);
  }
}
function runProcess(cmd, args, what) {
  const r = spawnSync(cmd, args, { cwd: dir, env, encoding: 'utf8', timeout: 60_000 });
  const detail = r.error ? String(r.error) : `exit ${r.status}${r.signal ? ` (${r.signal})` : ''}\n${r.stdout}${r.stderr}`;
  report(r.status === 0, what, detail);
}

try {
  for (const p of problems) report(false, 'README structure', p);
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'newcomer', version: '1.0.0', private: true, type: 'module' }, null, 2));
  // The tarball under its own name, where the README's `npm install ./credence-x.y.z.tgz` expects it.
  copyFileSync(tarball, join(dir, basename(tarball)));

  // Sections in README order; a section's js blocks run together after its other blocks are run in place.
  const order = [];
  const bySection = new Map();
  for (const b of blocks) {
    if (!bySection.has(b.section)) {
      bySection.set(b.section, []);
      order.push(b.section);
    }
    bySection.get(b.section).push(b);
  }
  let n = 0;
  for (const section of order) {
    const js = [];
    let browser = false;
    for (const b of bySection.get(section)) {
      const what = `${section} · ${b.lang || 'no language'} block at line ${b.line}`;
      if (b.marker?.skip) {
        skipped++;
        console.log(`skip ${what}: ${b.marker.skip}`);
        continue;
      }
      if (RUN_JS.has(b.lang)) {
        js.push(b);
        browser ||= Boolean(b.marker?.browser);
      } else if (RUN_SH.has(b.lang)) {
        runProcess('bash', ['-e', '-o', 'pipefail', '-c', b.code], what);
      } else if (PARSE_JSON.has(b.lang)) {
        try {
          JSON.parse(b.code);
          report(true, what);
        } catch (err) {
          report(false, what, err.message);
        }
      } else {
        report(false, what, `a ${b.lang || 'fenced block without a language'} cannot run: mark it <!-- newcomer: skip (reason) --> or give it a language this script runs (js, sh, json)`);
      }
    }
    if (section === 'Install' && !existsSync(join(dir, 'node_modules/credence/package.json'))) {
      report(false, 'Install: the README installs the tarball', `node_modules/credence is missing after the Install section's blocks (the tarball is ${basename(tarball)})`);
    }
    if (js.length) {
      const file = join(dir, `section-${String(++n).padStart(2, '0')}.mjs`);
      writeFileSync(file, moduleFor(js, { browser }));
      runProcess(process.execPath, [file], `${section} · ${js.length} js block(s) from line ${js[0].line}${browser ? ' (fake-indexeddb)' : ''} → ${basename(file)}`);
    }
  }
  if (!existsSync(join(dir, 'node_modules/credence/package.json'))) {
    report(false, 'the README installs the tarball', `no block installed ${basename(tarball)}`);
  }
} finally {
  if (failed && process.env.CREDENCE_KEEP_NEWCOMER) console.log(`(kept ${dir})`);
  else rmSync(dir, { recursive: true, force: true });
}
const blocksSeen = blocks.length;
console.log(`\n${blocksSeen} blocks: ${ran} runs passed (js blocks run per section), ${skipped} blocks skipped with a reason, ${failed} failed · ${((Date.now() - t0) / 1000).toFixed(1)} s`);
process.exit(failed ? 1 : 0);
