// Drives the installed `credence` bin as a user would: spawned processes with
// a scripted stdin, or a pseudo-terminal (support/pty-run.py) for prompts.
//
// Store: the tests run against the CLI's store factory. While OkfStore is a
// stub they use the JSON test store (support/json-store.mjs) through
// CREDENCE_STORE_MODULE; once OkfStore works they use a real bundle through
// CREDENCE_BUNDLE_DIR. CREDENCE_TEST_STORE=json|okf forces one.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { OkfStore } from 'credence';

const here = dirname(fileURLToPath(import.meta.url));
export const ROOT = resolve(here, '../../..');
export const BIN = join(ROOT, 'node_modules/.bin/credence');
const JSON_STORE = join(here, 'json-store.mjs');
const PTY = join(here, 'pty-run.py');

function okfWorks() {
  const dir = mkdtempSync(join(tmpdir(), 'credence-okf-probe-'));
  try {
    new OkfStore(dir);
    return true;
  } catch {
    return false;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export const STORE_KIND = process.env.CREDENCE_TEST_STORE || (okfWorks() ? 'okf' : 'json');

/** A fresh temporary home with its own store; `env` points the CLI at it. */
export function sandbox() {
  const dir = mkdtempSync(join(tmpdir(), 'credence-cli-'));
  const env = { PATH: process.env.PATH, HOME: dir, USER: 'tester', LANG: 'C.UTF-8' };
  if (STORE_KIND === 'json') {
    env.CREDENCE_STORE_MODULE = JSON_STORE;
    env.CREDENCE_JSON_STORE = join(dir, 'store.json');
  } else {
    env.CREDENCE_BUNDLE_DIR = join(dir, 'bundle');
  }
  return { dir, env, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

function collect(child, input) {
  return new Promise((res, rej) => {
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', rej);
    child.on('close', (code) => res({ code, stdout, stderr }));
    if (input !== undefined) child.stdin.end(input);
    else child.stdin.end();
  });
}

/** Runs `credence ...args` with piped stdio; resolves `{ code, stdout, stderr }`. */
export function credence(args, { env, input, extraEnv } = {}) {
  const child = spawn(BIN, args, { env: { ...env, ...extraEnv }, stdio: ['pipe', 'pipe', 'pipe'] });
  return collect(child, input);
}

/** Like `credence` with --json, parsing stdout. */
export async function credenceJson(args, options) {
  const r = await credence([...args, '--json'], options);
  let json;
  try {
    json = JSON.parse(r.stdout);
  } catch {
    throw new Error(`not JSON (exit ${r.code}): ${r.stdout}\nstderr: ${r.stderr}`);
  }
  return { ...r, json };
}

/**
 * Runs `credence ...args` in a pseudo-terminal, answering prompts:
 * `steps` is [[regex, answer], ...] (answer null = Ctrl-D, "^C" = Ctrl-C).
 * Resolves `{ code, output }` (stdout and stderr both reach the terminal).
 */
export function credencePty(args, steps, { env } = {}) {
  const child = spawn('python3', [PTY, JSON.stringify(steps), '--', BIN, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((res, rej) => {
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('error', rej);
    child.on('close', (code) => res({ code, output: output.replace(/\r\n/g, '\n') }));
  });
}
