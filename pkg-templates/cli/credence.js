#!/usr/bin/env node
// The `credence` command. `credence help` lists the commands, the environment
// and the exit codes (./exit.js).
import { readFileSync, realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { CredenceError } from '../index.node.js';
import { COMMANDS, commandHelp, mainHelp, parseCommand } from './args.js';
import * as commands from './commands.js';
import { EXIT, UsageError, errorJson, exitCodeFor } from './exit.js';
import { openMemory } from './memory.js';

const VERSION = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version;

function print(stream, text) {
  if (text !== undefined && text !== '') stream.write(text.endsWith('\n') ? text : `${text}\n`);
}

function report(err, json, io) {
  if (json) {
    print(io.stdout, JSON.stringify({ error: errorJson(err) }, null, 2));
  } else if (err instanceof UsageError) {
    print(io.stderr, `credence: ${err.message}`);
  } else if (err instanceof CredenceError) {
    print(io.stderr, `credence: ${err.code}${err.field ? ` (${err.field})` : ''}: ${err.message}`);
  } else {
    print(io.stderr, `credence: ${err?.message ?? err}`);
    if (io.env.CREDENCE_DEBUG && err?.stack) print(io.stderr, err.stack);
  }
  return exitCodeFor(err);
}

/** Runs one command line; resolves to the exit code. */
export async function main(argv, io = { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr, env: process.env }) {
  const [name, ...rest] = argv;
  const json = argv.includes('--json');
  if (name === undefined || name === 'help' || name === '--help' || name === '-h') {
    const topic = rest[0];
    if (topic !== undefined && !COMMANDS[topic]) return report(new UsageError(`unknown command ${JSON.stringify(topic)}; see credence help`), json, io);
    print(io.stdout, topic ? commandHelp(topic) : mainHelp(VERSION));
    return EXIT.OK;
  }
  if (name === '--version' || name === '-V' || name === 'version') {
    print(io.stdout, VERSION);
    return EXIT.OK;
  }
  if (!Object.hasOwn(COMMANDS, name)) {
    return report(new UsageError(`unknown command ${JSON.stringify(name)}; commands: ${Object.keys(COMMANDS).join(', ')}`), json, io);
  }

  let opened;
  try {
    const parsed = parseCommand(name, rest);
    if (parsed.values.help) {
      print(io.stdout, commandHelp(name));
      return EXIT.OK;
    }
    if (name === 'mcp') {
      if (parsed.positionals.length) throw new UsageError('credence mcp takes no arguments');
      const { runMcpServer } = await import('./mcp.js');
      await runMcpServer({ env: io.env, version: VERSION });
      return EXIT.OK;
    }
    opened = await openMemory(io.env);
    const ctx = { ...opened, env: io.env, stdin: io.stdin, stderr: io.stderr, warn: (m) => print(io.stderr, `credence: ${m}`) };
    const result = await commands[name](ctx, parsed);
    print(io.stdout, json ? JSON.stringify(result.json, null, 2) : result.text);
    return result.exit ?? EXIT.OK;
  } catch (err) {
    return report(err, json, io);
  } finally {
    await opened?.close().catch(() => {});
  }
}

// Run when executed (also through npm's bin symlink), not when imported.
if (process.argv[1] && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) {
  // `credence recall | head -1`: a closed pipe ends the output, not the process with a stack trace.
  process.stdout.on('error', (err) => {
    if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw err;
  });
  process.exitCode = await main(process.argv.slice(2));
}
