// Finishes wasm-bindgen's declarations for a TypeScript user: Option<JsValue>
// parameters become optional (wasm-bindgen keeps them required once given an
// explicit type), parameter names become camelCase, and Symbol.dispose goes
// (it needs lib esnext in every consumer). Usage: node finish-dts.mjs in out
import { readFileSync, writeFileSync } from 'node:fs';

const [input, output] = process.argv.slice(2);
const camel = (s) => s.replace(/_([a-z])/g, (_, c) => c.toUpperCase());
const text = readFileSync(input, 'utf8')
  .split('\n')
  .filter((l) => !/\[Symbol\.dispose\]|^\/\* (tslint|eslint)-disable/.test(l))
  .map((line) => {
    if (!/^\s+(constructor|[a-zA-Z]+)\(.*\)(: .*)?;$/.test(line) && !/^export function/.test(line)) return line;
    return line
      .replace(/\b([a-z]+(?:_[a-z]+)+)(\??: )/g, (_, n, sep) => camel(n) + sep)
      .replace(/\b(options|config): ([A-Za-z]+)\)/, '$1?: $2)')
      .replace(/recall\(subject: string, /, 'recall(subject?: string, ')
      // undo of a retraction id (`rt:…`) answers with the retraction.
      .replace(/^(\s+)undo\(conflictId: string\): Promise<Conflict>;$/, '$1undo(retractionId: `rt:${string}`): Promise<Retraction>;\n$1undo(conflictId: string): Promise<Conflict>;');
  })
  .join('\n');
writeFileSync(output, text);
