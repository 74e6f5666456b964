// The package as a user installs it: the packed tarball into an empty folder
// (library only: no devDependencies, no optional peers), then one check per
// packaging promise of issue 45 — each failed on the package before it was
// fixed. Usage: node js-tests/packaging/package-shape.mjs <tarball>
// Prints the install figures and ends with "N passed, M failed".
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const tarball = resolve(process.argv[2] ?? '');
if (!process.argv[2] || !existsSync(tarball)) {
  console.error('usage: node js-tests/packaging/package-shape.mjs <credence-x.y.z.tgz>');
  process.exit(2);
}
const MAX_PACKAGES = 10;
const MAX_BYTES = 5 * 1024 * 1024;

const dir = mkdtempSync(join(tmpdir(), 'credence-shape-'));
const run = (cmd, args, opts = {}) => spawnSync(cmd, args, { cwd: dir, encoding: 'utf8', ...opts });
let passed = 0;
let failed = 0;
async function check(name, fn) {
  try {
    await fn();
    passed++;
    console.log(`ok   ${name}`);
  } catch (err) {
    failed++;
    console.log(`FAIL ${name}\n     ${String(err?.message ?? err).split('\n').join('\n     ')}`);
  }
}
function assert(cond, message) {
  if (!cond) throw new Error(message);
}

function sizeOf(path) {
  const s = statSync(path);
  if (!s.isDirectory()) return s.size;
  return readdirSync(path).reduce((sum, name) => sum + sizeOf(join(path, name)), 0);
}

try {
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'shape-check', version: '1.0.0', private: true, type: 'module' }));
  execFileSync('npm', ['install', '--no-audit', '--no-fund', tarball], { cwd: dir, stdio: ['ignore', 'ignore', 'inherit'] });
  const mod = join(dir, 'node_modules');
  const installed = readdirSync(mod)
    .filter((n) => !n.startsWith('.'))
    .flatMap((n) => (n.startsWith('@') ? readdirSync(join(mod, n)).map((m) => `${n}/${m}`) : [n]));
  const bytes = sizeOf(mod);
  console.log(`install: ${installed.length} packages (${installed.join(', ')}), ${(bytes / 1024 / 1024).toFixed(2)} MB in node_modules`);

  await check(`library-only install: ≤ ${MAX_PACKAGES} packages and ≤ 5 MB (the MCP SDK is an optional peer)`, () => {
    assert(installed.length <= MAX_PACKAGES, `${installed.length} packages: ${installed.join(', ')}`);
    assert(bytes <= MAX_BYTES, `${(bytes / 1024 / 1024).toFixed(2)} MB`);
  });

  await check('the wasm ships once', () => {
    const wasm = [];
    const walk = (p) => {
      for (const e of readdirSync(p, { withFileTypes: true })) {
        if (e.isDirectory()) walk(join(p, e.name));
        else if (e.name.endsWith('.wasm')) wasm.push(join(p, e.name).slice(mod.length + 1));
      }
    };
    walk(join(mod, 'credence'));
    assert(wasm.length === 1, `wasm files: ${wasm.join(', ')}`);
  });

  await check('package.json has repository, homepage and bugs', () => {
    const p = JSON.parse(readFileSync(join(mod, 'credence/package.json'), 'utf8'));
    assert(p.repository?.url && p.homepage && p.bugs?.url, JSON.stringify({ repository: p.repository, homepage: p.homepage, bugs: p.bugs }));
  });

  // Every value the declarations export is a named export of `import` in
  // Node ESM, and a property of `require` (adaptV1Store was missing from import).
  await check('ESM named exports and require() match the type declarations (credence, credence/tools, credence/conformance)', () => {
    const declared = (file) => [...readFileSync(file, 'utf8').matchAll(/^export (?:declare )?(?:class|function|const|let) ([A-Za-z_$][\w$]*)/gm)].map((m) => m[1]);
    const entries = [
      ['credence', declared(join(mod, 'credence/index.d.ts'))],
      ['credence/tools', existsSync(join(mod, 'credence/tools/index.d.ts')) ? declared(join(mod, 'credence/tools/index.d.ts')) : ['createTools']],
      ['credence/conformance', existsSync(join(mod, 'credence/conformance/index.d.ts')) ? declared(join(mod, 'credence/conformance/index.d.ts')) : ['runStoreConformance']],
    ];
    for (const [spec, names] of entries) {
      assert(names.length > 0, `${spec}: no declarations found`);
      const script = `import * as m from ${JSON.stringify(spec)}; const missing = ${JSON.stringify(names)}.filter((n) => typeof m[n] === 'undefined'); console.log(JSON.stringify(missing));`;
      const r = run(process.execPath, ['--input-type=module', '-e', script]);
      assert(r.status === 0, `${spec}: import failed: ${r.stderr}`);
      const missing = JSON.parse(r.stdout.trim() || '[]');
      assert(missing.length === 0, `${spec}: declared but not exported to import: ${missing.join(', ')}`);
      if (spec === 'credence' || spec === 'credence/conformance') {
        const cjs = run(process.execPath, ['-e', `const m = require(${JSON.stringify(spec)}); console.log(JSON.stringify(${JSON.stringify(names)}.filter((n) => typeof m[n] === 'undefined')))`]);
        assert(cjs.status === 0 && cjs.stdout.trim() === '[]', `require: missing ${cjs.stdout.trim()} ${cjs.stderr}`);
      }
    }
  });

  // A Node project's tsconfig: no DOM lib, no @types, skipLibCheck false; the
  // README's calls type-check as written (memory.entity(id) with one argument).
  await check('types check without the DOM lib (skipLibCheck false), entity(id) takes one argument', () => {
    writeFileSync(
      join(dir, 'consumer.ts'),
      [
        "import { Memory, IndexedDbStore, adaptV1Store, type ClaimStore, type Outcome } from 'credence';",
        "import { createTools, aiSdkTools } from 'credence/tools';",
        "import { runStoreConformance, type ConformanceHandle } from 'credence/conformance';",
        'const memory = new Memory({ sources: { user: { trust: 0.95 } } });',
        "export const e: Promise<unknown> = memory.entity('org:acme');",
        "export const o: Promise<Outcome> = memory.remember({ predicate: 'likes', object: 'tea' });",
        'export const p = memory.predicates();',
        "export const s: 'single' | 'multi' = (null as unknown as Outcome).spec.cardinality;",
        'export const t = createTools(memory).schemas();',
        'export const a = aiSdkTools(memory, { peopleTools: false });',
        "export const i = typeof IndexedDbStore;",
        'export const v = adaptV1Store;',
        'export const c: typeof runStoreConformance = runStoreConformance;',
        'export const h: ConformanceHandle = { store: null as unknown as ClaimStore };',
      ].join('\n'),
    );
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { strict: true, noEmit: true, skipLibCheck: false, target: 'es2022', module: 'nodenext', moduleResolution: 'nodenext', lib: ['es2022'], types: [] }, files: ['consumer.ts'] }),
    );
    const r = run(join(ROOT, 'node_modules/.bin/tsc'), ['-p', 'tsconfig.json']);
    assert(r.status === 0, r.stdout + r.stderr);
  });

  // Jest's jsdom environment has no TextDecoder/TextEncoder globals and
  // resolves the "browser" export condition.
  await check('a Jest suite with the jsdom environment imports and uses credence', () => {
    writeFileSync(
      join(dir, 'jsdom.test.cjs'),
      [
        '/** @jest-environment jsdom */',
        "const { Memory } = require('credence');",
        "test('remembers in jsdom', async () => {",
        "  expect(typeof window).toBe('object');",
        "  const o = await new Memory().remember({ predicate: 'likes', object: 'tea' });",
        "  expect(o.action).toBe('added');",
        '});',
      ].join('\n'),
    );
    writeFileSync(join(dir, 'jest.config.cjs'), `module.exports = { rootDir: ${JSON.stringify(dir)}, testMatch: ['**/jsdom.test.cjs'], testEnvironment: ${JSON.stringify(join(ROOT, 'node_modules/jest-environment-jsdom'))} };`);
    const r = run(join(ROOT, 'node_modules/.bin/jest'), ['--config', join(dir, 'jest.config.cjs'), '--rootDir', dir], { env: { ...process.env, NODE_PATH: join(dir, 'node_modules') } });
    assert(r.status === 0, r.stdout + r.stderr);
  });

  await check('a new bundle gets a .gitignore for its derived files (index/, journal/, locks)', async () => {
    const script = `import { Memory, OkfStore } from 'credence'; const m = new Memory({ store: new OkfStore('bundle') }); await m.remember({ predicate: 'likes', object: 'tea' });`;
    const r = run(process.execPath, ['--input-type=module', '-e', script]);
    assert(r.status === 0, r.stderr);
    const ignore = existsSync(join(dir, 'bundle/.gitignore')) ? readFileSync(join(dir, 'bundle/.gitignore'), 'utf8') : '';
    for (const line of ['index/', 'journal/', '*.lock']) assert(ignore.split('\n').includes(line), `.gitignore lacks ${line}: ${JSON.stringify(ignore)}`);
  });

  await check('credence mcp without the MCP SDK says how to install it (exit 4)', () => {
    const r = run(join(dir, 'node_modules/.bin/credence'), ['mcp'], { input: '', env: { ...process.env, HOME: dir, CREDENCE_BUNDLE_DIR: join(dir, 'mcp-bundle') }, timeout: 20000 });
    assert(r.status === 4, `exit ${r.status}: ${r.stderr}`);
    assert(/npm install @modelcontextprotocol\/sdk/.test(r.stderr), r.stderr);
  });
} finally {
  rmSync(dir, { recursive: true, force: true });
}
console.log(`\n${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
