// The last release before the speed work (issue #20), built by
// scripts/bench-baseline.sh from a pinned commit and installed beside the
// package as `credence-baseline`, so every speed figure is a ratio measured
// in the same run. `--no-baseline` leaves it out (scripts/test-extra-bench.sh,
// where a first build would cost minutes).
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { run } from './lib.mjs';

const ROOT = path.resolve(import.meta.dirname, '..');
export const BASELINE_COMMIT = process.env.CREDENCE_BENCH_BASELINE ?? '756ab32';

let loaded;

/**
 * `{ commit, Memory, wasmFile, srcDir }` of the baseline, building it on first
 * use (cached under .bench-baseline/); `null` with `--no-baseline`.
 */
export async function baseline() {
  if (loaded !== undefined) return loaded;
  if (process.argv.includes('--no-baseline')) return (loaded = null);
  const r = run('bash', [path.join(ROOT, 'scripts/bench-baseline.sh'), BASELINE_COMMIT], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  const cache = r.stdout.trim().split('\n').pop();
  const install = path.join(cache, 'install');
  const require = createRequire(path.join(install, 'package.json'));
  const pkgDir = path.dirname(require.resolve('credence-baseline/package.json'));
  const { Memory } = await import(require.resolve('credence-baseline'));
  const wasmFile = packageWasm(pkgDir);
  return (loaded = { commit: path.basename(cache), Memory, wasmFile, pkgDir, srcDir: path.join(cache, 'src') });
}

/** The one wasm of an installed package: web/ since the lean install, node/ before. */
export function packageWasm(pkgDir) {
  const found = ['web', 'node'].map((dir) => path.join(pkgDir, dir, 'credence_bg.wasm')).find(existsSync);
  if (!found) throw new Error(`no credence_bg.wasm under ${pkgDir}/web or ${pkgDir}/node`);
  return found;
}
