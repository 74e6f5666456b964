// The OKF bundle's file formats: slot file names, slot files (YAML front matter
// + a readable body) and log.md records, and the errors for a bad file or a
// bad slot reference. Pure functions; no I/O.
import { createHash } from 'node:crypto';
import YAML from 'yaml';
import { CredenceError } from '../errors.js';

export const FORMAT = 'credence-okf/1';
// Read only: an entity registry slot file written before entities became
// keyed records (issue #44) whose entities are in entities/*.md (2), and its
// names and same_entity questions in entities/<type>.<kind>.<chunk>.md too (3).
// loadSlot answers such a registry whole (okf-legacy.js) until the engine
// moves it to entity slots and commits it emptied, as format 1.
export const FORMAT_ENTITY_FILES = 'credence-okf/2';
export const FORMAT_ITEM_FILES = 'credence-okf/3';
/** Registry claims or conflicts per chunk file. */
export const ITEM_CHUNK = 64;
export const ITEM_KINDS = ['claims', 'conflicts'];
/** A registry's count of claims or conflicts kept in chunk files. */
export const rowsOf = (kind) => (kind === 'claims' ? 'claimRows' : 'conflictRows');
export const KEY_SEPARATOR = '\u001f';
const MAX_NAME = 200;

export function malformed(file, problem, cause) {
  const err = new CredenceError(`${file}: ${problem}`, { code: 'MALFORMED_STORE_DATA', cause });
  err.file = file;
  return err;
}

/** OkfStore's error for a bad argument (`INVALID_INPUT`, naming the field). */
export function invalid(field, message) {
  return new CredenceError(`OkfStore: ${field} ${message}`, { code: 'INVALID_INPUT', field });
}

/** `ref`, checked to be `{ key, subject, predicate }` with the key the two make. */
export function checkRef(ref) {
  if (!ref || typeof ref.subject !== 'string' || typeof ref.predicate !== 'string' || ref.key !== slotKey(ref.subject, ref.predicate)) {
    throw invalid('ref', `must be { key: subject + "\\u001f" + predicate, subject, predicate }`);
  }
  return ref;
}

// ---- file names ---------------------------------------------------------------
// `claims/<subject>~<predicate>.md`. Lowercase letters, digits, `_ . -` stay as
// they are; an uppercase letter X becomes `^x` (so case-insensitive file systems
// never merge two slots); any other character becomes `%XX` per UTF-8 byte.
// The name decodes back to (subject, predicate). Names longer than 200 bytes
// are cut and end in `~~<hash>`; those are identified by their front matter.

function encodePart(text) {
  let out = '';
  for (const ch of text) {
    if (/[a-z0-9_-]/.test(ch) || (ch === '.' && out !== '')) out += ch;
    else if (/[A-Z]/.test(ch)) out += `^${ch.toLowerCase()}`;
    else for (const byte of Buffer.from(ch, 'utf8')) out += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

const decoder = new TextDecoder('utf-8', { fatal: true });

function decodePart(text) {
  const bytes = [];
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === '%') {
      const hex = text.slice(i + 1, i + 3);
      if (!/^[0-9A-F]{2}$/.test(hex)) return null;
      bytes.push(parseInt(hex, 16));
      i += 2;
    } else if (ch === '^') {
      const next = text[i + 1];
      if (!next || !/[a-z]/.test(next)) return null;
      bytes.push(next.toUpperCase().charCodeAt(0));
      i += 1;
    } else if (/[a-z0-9_.-]/.test(ch)) {
      bytes.push(ch.charCodeAt(0));
    } else {
      return null;
    }
  }
  try {
    return decoder.decode(new Uint8Array(bytes));
  } catch {
    return null;
  }
}

export function slotKey(subject, predicate) {
  return `${subject}${KEY_SEPARATOR}${predicate}`;
}

export function fileNameOf(subject, predicate) {
  const full = `${encodePart(subject)}~${encodePart(predicate)}`;
  if (full.length + 3 <= MAX_NAME) return `${full}.md`;
  let cut = full.slice(0, 150);
  cut = cut.replace(/%[0-9A-F]?$|\^$/, '');
  const hash = createHash('sha256').update(slotKey(subject, predicate)).digest('hex').slice(0, 16);
  return `${cut}~~${hash}.md`;
}

/**
 * The start every entity file name of a registry's type has (ids are
 * `type:slug`), at most 140 chars: a name cut for length keeps ≥ 148.
 */
export const entityFilePrefix = (type) => encodePart(`${type}:`).slice(0, 140);

/** The slot a file name stands for; `{ hashed: true }` when only its contents can tell; null when not a slot file. */
export function refOfFileName(name) {
  if (!name.endsWith('.md') || name.startsWith('.')) return null;
  const stem = name.slice(0, -3);
  if (/~~[0-9a-f]{16}$/.test(stem)) return { hashed: true };
  const parts = stem.split('~');
  if (parts.length !== 2) return null;
  const [subject, predicate] = parts.map(decodePart);
  if (subject === null || predicate === null || fileNameOf(subject, predicate) !== name) return null;
  return { key: slotKey(subject, predicate), subject, predicate };
}

/** Code point order (= UTF-8 byte order), the order MemoryStore lists keys in. */
export function compareKeys(a, b) {
  const x = [...a];
  const y = [...b];
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = x[i].codePointAt(0) - y[i].codePointAt(0);
    if (d !== 0) return d;
  }
  return x.length - y.length;
}

// ---- slot files ------------------------------------------------------------------

const oneLine = (text) => String(text).replace(/\s*\n\s*/g, ' ⏎ ');
const pct = (n) => (typeof n === 'number' ? n.toFixed(2) : '?');
const day = (t) => (t ? String(t).slice(0, 10) : '…');

function renderBody(subject, predicate, slot) {
  const lines = [`# ${oneLine(subject)} · ${oneLine(predicate)}`, ''];
  const open = slot.conflicts.filter((c) => c.status === 'open').length;
  lines.push(
    `Version ${slot.version} · ${slot.claims.length} claim(s) · ${open} open conflict(s).`,
    'The YAML front matter above is the source of truth; this text is rewritten on every write.',
    '',
    '## Claims (oldest first)',
    '',
  );
  if (slot.entityKeys) {
    lines.push(`Entity \`${oneLine(slot.entityIndex.id)}\` (${oneLine(slot.entityIndex.type)}), found by ${slot.entityKeys.length} name key(s).`, '');
  }
  for (const c of slot.claims) {
    const valid = c.validFrom || c.validTo ? ` · valid ${day(c.validFrom)} → ${day(c.validTo)}` : '';
    const sources = [...new Set((c.provenance ?? []).map((p) => p.sourceId))].join(', ');
    if (slot.erasures?.some((t) => t.claimId === c.id)) {
      lines.push(`- *(erased)* — ${c.status} · \`${c.id}\``);
      continue;
    }
    lines.push(`- **${oneLine(c.object)}** — ${c.status}, confidence ${pct(c.confidence)}${valid} · from ${sources || '?'} · \`${c.id}\``);
  }
  if (slot.entities?.length) {
    lines.push('', '## Entities', '');
    for (const e of slot.entities) {
      const merged = e.mergedInto ? ` (merged into \`${e.mergedInto}\`)` : '';
      lines.push(`- \`${e.id}\` **${oneLine(e.name)}**${merged} — also: ${e.aliases.filter((a) => a !== e.name).map(oneLine).join(', ') || '—'}`);
    }
  }
  if (slot.conflicts.length) {
    lines.push('', '## Conflicts', '');
    // By id, not a scan per conflict: a registry holds thousands of questions and their name claims.
    const claims = new Map(slot.claims.map((c) => [c.id, c]));
    const objectOf = (id, f) => oneLine(claims.get(id)?.object ?? (f?.changed?.id === id ? f.changed.object : id));
    for (const f of slot.conflicts) {
      const settled = f.settlement ? ` → ${f.settlement}${f.settledBy ? ` by ${f.settledBy}` : ''}` : '';
      lines.push(`- \`${f.id}\` ${f.kind}, ${f.status}${settled}: **${objectOf(f.earlierId, f)}** vs **${objectOf(f.newerId, f)}** — ${oneLine(f.reason)}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

/**
 * A slot file's text. `entity`: the key rows of an entity slot
 * (`commit.index.entity`: `{ type, id, keys }`), kept in the front matter
 * beside the slot so they are written, journaled and replaced with it.
 */
export function renderSlotFile(subject, predicate, slot, entity = null) {
  const front = {
    format: FORMAT,
    subject,
    predicate,
    version: slot.version,
    reviewed: slot.reviewed ?? 0,
    claims: slot.claims ?? [],
    conflicts: slot.conflicts ?? [],
    writes: slot.writes ?? [],
    // An entity slot's entity, and (an old registry moved over whole) a registry's (SPEC §9).
    ...(slot.entities?.length ? { entities: slot.entities } : {}),
    ...(slot.merges?.length ? { merges: slot.merges } : {}),
    ...(slot.retractions?.length ? { retractions: slot.retractions } : {}),
    ...(slot.erasures?.length ? { erasures: slot.erasures } : {}),
    // Archive chunks holding older observations of this slot's claims (SPEC §8).
    ...(slot.archive?.length ? { archive: slot.archive } : {}),
    // Claims moved whole to claim chunks (a slot: how many; a chunk: where its first stood).
    ...(slot.archivedClaims ? { archivedClaims: slot.archivedClaims } : {}),
    // The latest time an archived claim holds for: an older report reads the archive too.
    ...(slot.archivedUntil ? { archivedUntil: slot.archivedUntil } : {}),
    // findEntities' rows of this entity (okf-keys.js indexes them by key).
    ...(entity ? { entityIndex: { type: entity.type, id: entity.id }, entityKeys: entity.keys } : {}),
  };
  return `---\n${renderFrontMatter(front)}---\n\n${renderBody(subject, predicate, { ...front })}`;
}

// The front matter is YAML in one canonical shape: one scalar per top-level
// key (`version: 3`), and each list item on its own line as a JSON flow node
// (`  - {"id": "cl_…", "status": "active", …}`). JSON is YAML's flow syntax,
// so any YAML parser reads it; strings are always double-quoted (read the same
// by YAML 1.1 and 1.2: no dates, no yes/no booleans). credence reads a file in
// this shape line by line with JSON.parse, 10–30× faster than the YAML parser,
// which stays for everything else (hand-edited files, older bundles written
// in block style). A line per item also keeps diffs of a bundle small.

// JSON leaves these raw; YAML counts them as non-printable or as line breaks.
const YAML_UNSAFE = /[\u007f-\u009f\u2028\u2029\ufeff\ufffe\uffff]/g;
const quoted = (text) => JSON.stringify(text).replace(YAML_UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

/** `value` as a one-line JSON flow node, with ", " and ": " between items (as YAML 1.1 parsers want). */
function flow(value) {
  if (typeof value === 'string') return quoted(value);
  if (value === null || value === undefined) return 'null';
  if (typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(flow).join(', ')}]`;
  const entries = Object.entries(value).filter(([, v]) => v !== undefined);
  return `{${entries.map(([k, v]) => `${quoted(k)}: ${flow(v)}`).join(', ')}}`;
}

function renderFrontMatter(front) {
  const lines = [];
  for (const [key, value] of Object.entries(front)) {
    if (!Array.isArray(value) || value.length === 0) {
      lines.push(`${key}: ${flow(value)}`);
      continue;
    }
    lines.push(`${key}:`);
    for (const item of value) lines.push(`  - ${flow(item)}`);
  }
  return `${lines.join('\n')}\n`;
}

/** Front matter in the canonical shape, read with JSON.parse; null for anything else (the YAML parser decides). */
function parseCanonical(front) {
  const data = {};
  let list = null;
  try {
    for (const line of front.split('\n')) {
      if (line === '') continue;
      if (line.startsWith('  - ')) {
        if (!list) return null;
        list.push(JSON.parse(line.slice(4)));
        continue;
      }
      const m = /^([A-Za-z]+):(?: (.+))?$/.exec(line);
      if (!m || Object.hasOwn(data, m[1])) return null;
      list = m[2] === undefined ? [] : null;
      data[m[1]] = list ?? JSON.parse(m[2]);
    }
  } catch {
    return null;
  }
  return data;
}

/** The front matter's data: the canonical shape fast, anything else through the YAML parser. */
export function parseFrontMatter(front) {
  return parseCanonical(front) ?? YAML.parse(front);
}

// A light shape check so a hand-broken file is reported with its name.
// Specs: 's' / 'n' (string / number, '?' when optional), { oneOf }, { listOf }, or a mapping.
const oneOf = (values, optional = false) => ({ oneOf: values, optional });
const listOf = (item, optional = false) => ({ listOf: item, optional });
const STATUS = oneOf(['active', 'disputed', 'superseded', 'outweighed', 'retired', 'retracted']);
const ACTION = oneOf(['added', 'confirmed', 'superseded', 'refined', 'historical', 'outweighed', 'disputed', 'appended', 'replaced', 'merged', 'skipped', 'rejected']);
const PROVENANCE = { sourceId: 's', sourceTrust: 'n?', extractorConf: 'n?', observedAt: 's?' };
const CLAIM = {
  id: 's', subject: 's', predicate: 's', object: 's', status: STATUS, confidence: 'n', logOdds: 'n',
  statedConfidence: 'n', validFrom: 's?', validTo: 's?', recordedAt: 's', provenance: listOf(PROVENANCE),
  supersededBy: 's?', supersedes: 's?', conflictIds: listOf('s', true), archivedObservations: 'n?',
  kind: oneOf(['value', 'append', 'merge_on_read', 'import'], true),
};
const CHANGE = { claimId: 's', before: STATUS, after: STATUS };
const CONFLICT = {
  id: 's', kind: oneOf(['dispute', 'ask_user', 'review', 'merge_proposal', 'same_entity', 'dependent']), earlierId: 's', newerId: 's', reason: 's',
  status: oneOf(['open', 'settled', 'resolved_by_evidence', 'moot']), openedAt: 's', settledAt: 's?', settledBy: 's?',
  settlement: oneOf(['keep_newer', 'keep_earlier', 'keep_both', 'same', 'different'], true), changes: listOf(CHANGE, true), proposed: 's?',
};
const WRITE = { id: 's', claimId: 's', action: ACTION };
const RETRACTION = { id: 's', claimId: 's', at: 's', recordedAt: 's', by: 's', reason: 's?', changes: listOf(CHANGE), undoneAt: 's?' };
const TOMBSTONE = { claimId: 's', subject: 's', predicate: 's', erasedAt: 's', by: 's', reason: 's' };
const ENTITY = { id: 's', type: 's', name: 's', aliases: listOf('s'), mergedInto: 's?' };

function check(value, spec, where) {
  const optional = typeof spec === 'string' ? spec.endsWith('?') : Boolean(spec.optional);
  if (value === undefined || value === null) return optional ? null : `${where} is missing`;
  if (spec === 's' || spec === 's?') return typeof value === 'string' ? null : `${where} must be a string`;
  if (spec === 'n' || spec === 'n?') return Number.isFinite(value) ? null : `${where} must be a number`;
  if (spec.oneOf) return spec.oneOf.includes(value) ? null : `${where} must be one of ${spec.oneOf.join(', ')}`;
  if (spec.listOf) {
    if (!Array.isArray(value)) return `${where} must be a list`;
    for (let i = 0; i < value.length; i++) {
      const problem = check(value[i], spec.listOf, `${where}[${i}]`);
      if (problem) return problem;
    }
    return null;
  }
  if (typeof value !== 'object' || Array.isArray(value)) return `${where} must be a mapping`;
  for (const [field, inner] of Object.entries(spec)) {
    const problem = check(value[field], inner, `${where}.${field}`);
    if (problem) return problem;
  }
  return null;
}

const isCount = (n) => Number.isSafeInteger(n) && n >= 0;

/** Parses a slot file; throws MALFORMED_STORE_DATA naming `file`. */
export function parseSlotFile(text, file) {
  const src = text.replace(/\r\n/g, '\n');
  if (!src.startsWith('---\n')) throw malformed(file, 'does not start with YAML front matter (a line "---")');
  const end = src.indexOf('\n---\n', 3);
  const close = end === -1 && src.endsWith('\n---') ? src.length - 4 : end;
  if (close === -1) throw malformed(file, 'the YAML front matter is not closed by a line "---"');
  let data;
  try {
    data = parseFrontMatter(src.slice(4, close + 1));
  } catch (err) {
    const at = err.linePos?.[0];
    const where = at ? ` at line ${at.line + 1}, column ${at.col}` : '';
    throw malformed(file, `the front matter is not valid YAML${where}: ${String(err.message).split(' at line ')[0]}`, err);
  }
  if (!data || typeof data !== 'object' || Array.isArray(data)) throw malformed(file, 'the front matter is not a mapping');
  if (data.format !== undefined && ![FORMAT, FORMAT_ENTITY_FILES, FORMAT_ITEM_FILES].includes(data.format)) throw malformed(file, `unknown format ${JSON.stringify(data.format)} (expected ${FORMAT})`);
  if (typeof data.subject !== 'string' || typeof data.predicate !== 'string') throw malformed(file, 'subject and predicate must be strings');
  if (!isCount(data.version) || data.version === 0) throw malformed(file, 'version must be a positive integer');
  const reviewed = data.reviewed ?? 0;
  if (!isCount(reviewed)) throw malformed(file, 'reviewed must be a non-negative integer');
  const problem =
    check(data.claims ?? [], listOf(CLAIM), 'claims') ||
    check(data.conflicts ?? [], listOf(CONFLICT), 'conflicts') ||
    check(data.writes ?? [], listOf(WRITE), 'writes');
  if (problem) throw malformed(file, problem);
  const entityProblem =
    check(data.entities ?? [], listOf(ENTITY), 'entities') || check(data.merges ?? [], listOf({ id: 's', into: 's', from: 's' }), 'merges');
  if (entityProblem) throw malformed(file, entityProblem);
  const slot = { version: data.version, claims: data.claims ?? [], conflicts: data.conflicts ?? [], writes: data.writes ?? [], reviewed };
  if (data.entities?.length) slot.entities = data.entities;
  if (data.merges?.length) slot.merges = data.merges;
  if ((data.format === FORMAT_ENTITY_FILES || data.format === FORMAT_ITEM_FILES) !== (data.entityFiles !== undefined)) throw malformed(file, `entityFiles belongs with formats ${FORMAT_ENTITY_FILES} and ${FORMAT_ITEM_FILES}, and only there`);
  if ((data.format === FORMAT_ITEM_FILES) !== (data.claimRows !== undefined)) throw malformed(file, `claimRows belongs with format ${FORMAT_ITEM_FILES}, and only there`);
  if (data.entityFiles !== undefined) {
    if (!isCount(data.entityFiles)) throw malformed(file, 'entityFiles must be a non-negative integer');
    if (typeof data.generation !== 'string' || data.generation === '') throw malformed(file, 'generation must be a non-empty string');
    const pendingProblem = check(data.pending ?? [], listOf({ at: 'n', v: 'n', entity: ENTITY }), 'pending');
    if (pendingProblem) throw malformed(file, pendingProblem);
    const changesProblem = check(data.changes ?? [], listOf({ v: 'n', at: 'n', id: 's' }), 'changes');
    if (changesProblem) throw malformed(file, changesProblem);
    if (data.changesSince !== undefined && !isCount(data.changesSince)) throw malformed(file, 'changesSince must be a non-negative integer');
    Object.assign(slot, { entityFiles: data.entityFiles, generation: data.generation, pending: data.pending ?? [], changesSince: data.changesSince ?? data.version, changes: data.changes ?? [] });
  }
  if (data.claimRows !== undefined) Object.assign(slot, itemFields(data, file));
  const entity = entityFields(data, file);
  const retractionProblem = check(data.retractions ?? [], listOf(RETRACTION), 'retractions');
  if (retractionProblem) throw malformed(file, retractionProblem);
  if (data.retractions?.length) slot.retractions = data.retractions;
  const erasureProblem = check(data.erasures ?? [], listOf(TOMBSTONE), 'erasures');
  if (erasureProblem) throw malformed(file, erasureProblem);
  if (data.erasures?.length) slot.erasures = data.erasures;
  const archiveProblem = check(data.archive ?? [], listOf('s'), 'archive');
  if (archiveProblem) throw malformed(file, archiveProblem);
  if (data.archive?.length) slot.archive = data.archive;
  if (data.archivedClaims !== undefined) {
    if (!isCount(data.archivedClaims)) throw malformed(file, 'archivedClaims must be a non-negative integer');
    if (data.archivedClaims) slot.archivedClaims = data.archivedClaims;
  }
  if (data.archivedUntil !== undefined) {
    if (typeof data.archivedUntil !== 'string') throw malformed(file, 'archivedUntil must be an ISO 8601 string');
    slot.archivedUntil = data.archivedUntil;
  }
  return { ref: { key: slotKey(data.subject, data.predicate), subject: data.subject, predicate: data.predicate }, slot, entity };
}

/** An entity slot file's key rows (`entityIndex`, `entityKeys`) as `{ type, id, keys }`, checked; null when it has none. */
function entityFields(data, file) {
  if (data.entityIndex === undefined && data.entityKeys === undefined) return null;
  const problem = check(data.entityIndex, { type: 's', id: 's' }, 'entityIndex') || check(data.entityKeys, listOf({ key: 's', name: 's' }), 'entityKeys');
  if (problem) throw malformed(file, problem);
  return { type: data.entityIndex.type, id: data.entityIndex.id, keys: data.entityKeys.map(({ key, name }) => ({ key, name })) };
}

/** A format-3 registry slot file's fields for its claims and conflicts in chunk files, checked. */
function itemFields(data, file) {
  if (!isCount(data.claimRows) || !isCount(data.conflictRows)) throw malformed(file, 'claimRows and conflictRows must be non-negative integers');
  if (typeof data.itemGeneration !== 'string' || data.itemGeneration === '') throw malformed(file, 'itemGeneration must be a non-empty string');
  const pendingProblem = check(data.pendingItems ?? [], listOf({ kind: 's', at: 'n', v: 'n', item: {} }), 'pendingItems');
  if (pendingProblem) throw malformed(file, pendingProblem);
  for (const [i, p] of (data.pendingItems ?? []).entries()) {
    const problem = ITEM_KINDS.includes(p.kind) ? check(p.item, p.kind === 'claims' ? CLAIM : CONFLICT, `pendingItems[${i}].item`) : `pendingItems[${i}].kind must be "claims" or "conflicts"`;
    if (problem) throw malformed(file, problem);
  }
  const changesProblem = check(data.itemChanges ?? [], listOf({ v: 'n', kind: 's', at: 'n' }), 'itemChanges');
  if (changesProblem) throw malformed(file, changesProblem);
  if (data.itemChangesSince !== undefined && !isCount(data.itemChangesSince)) throw malformed(file, 'itemChangesSince must be a non-negative integer');
  return {
    claimRows: data.claimRows, conflictRows: data.conflictRows, itemGeneration: data.itemGeneration, pendingItems: data.pendingItems ?? [],
    itemChangesSince: data.itemChangesSince ?? data.version, itemChanges: data.itemChanges ?? [],
  };
}

// ---- legacy registry files (read only) ------------------------------------------------
// `entities/<type>.<kind>.<chunk>.md`: up to ITEM_CHUNK claims or conflicts of
// a registry whose slot file is format 3, positions chunk × ITEM_CHUNK on,
// with the registry version that wrote the file and the generation of the
// registry's items. `entities/<id>.md`: one entity of a format 2 or 3
// registry, with its position (`at`), the registry version that made this
// state of it and the registry's generation. Written before issue #44.

export const chunkFileOf = (type, kind, chunk) => `${encodePart(type)}.${kind}.${chunk}.md`;

/** The front matter of an entity or chunk file (`what`); throws MALFORMED_STORE_DATA naming `file`. */
function frontMatterOf(text, file, what) {
  const src = text.replace(/\r\n/g, '\n');
  const close = src.startsWith('---\n') ? src.indexOf('\n---\n', 3) : -1;
  if (close === -1) throw malformed(file, `is not ${what} (YAML front matter between "---" lines)`);
  try {
    return parseFrontMatter(src.slice(4, close + 1));
  } catch (err) {
    throw malformed(file, `the front matter is not valid YAML: ${String(err.message).split(' at line ')[0]}`, err);
  }
}

/** Parses a chunk file; throws MALFORMED_STORE_DATA naming `file`. */
export function parseChunkFile(text, file) {
  const data = frontMatterOf(text, file, 'a chunk file');
  if (!ITEM_KINDS.includes(data?.kind)) throw malformed(file, 'kind must be "claims" or "conflicts"');
  const problem = check(data, { registry: 's', generation: 's', kind: 's', chunk: 'n', version: 'n', items: listOf(data.kind === 'claims' ? CLAIM : CONFLICT) }, 'the front matter');
  if (problem) throw malformed(file, problem);
  if (!isCount(data.chunk) || !isCount(data.version) || data.items.length > ITEM_CHUNK) throw malformed(file, `chunk and version must be non-negative integers, with at most ${ITEM_CHUNK} items`);
  return { registry: data.registry, generation: data.generation, kind: data.kind, chunk: data.chunk, version: data.version, items: data.items };
}

/** Parses an entity file; throws MALFORMED_STORE_DATA naming `file`. */
export function parseEntityFile(text, file) {
  const data = frontMatterOf(text, file, 'an entity file');
  const problem = check(data, { registry: 's', generation: 's', at: 'n', version: 'n', entity: ENTITY }, 'the front matter');
  if (problem) throw malformed(file, problem);
  if (!isCount(data.at) || !isCount(data.version)) throw malformed(file, 'at and version must be non-negative integers');
  return { registry: data.registry, generation: data.generation, at: data.at, version: data.version, entity: data.entity };
}

// ---- log.md --------------------------------------------------------------------------
// One block per commit: a heading, then per entry a readable bullet and a
// machine line `<!-- credence:log {"k":key,"v":version,"c":commit,"e":entry} -->`.
// Blocks start with a blank line, so a torn final line never swallows the next.

const RECORD_OPEN = '<!-- credence:log ';
const RECORD_CLOSE = ' -->';
// A rewrite of log.md (an erasure) gives its head a new generation, so a
// reader that parsed the file up to some offset knows to start over even
// when the new file reuses the old one's inode number (file systems do).
const GENERATION = /^<!-- credence:generation ([0-9a-f]{1,64}) -->$/m;

/** The generation named in log.md's head (the text before its first block); '' for a file never rewritten. */
export function logGeneration(text) {
  const cut = text.indexOf('\n### ');
  return GENERATION.exec(cut < 0 ? text : text.slice(0, cut))?.[1] ?? '';
}

/** `head` (log.md's text before its first block) naming `generation`. */
export function withGeneration(head, generation) {
  const line = `<!-- credence:generation ${generation} -->`;
  if (GENERATION.test(head)) return head.replace(GENERATION, line);
  const body = head.endsWith('\n') ? head : `${head}\n`;
  return `${body}\n${line}\n`;
}

export const LOG_HEADER =
  '# credence log\n\nAppend-only. Each write adds a block: what changed, by which rule, and why. ' +
  'The `credence:log` comments carry the same entries as data.\n';

export function renderLogBlock(ref, version, commitId, entries) {
  const out = [``, `### ${entries[0]?.at ?? new Date().toISOString()} · ${oneLine(ref.subject)} · ${oneLine(ref.predicate)} · v${version}`, ''];
  if (entries.length === 0) {
    // A commit without log entries still marks its version as committed.
    out.push('- (no logged change)', `${RECORD_OPEN}${JSON.stringify({ k: ref.key, v: version, c: commitId, e: null })}${RECORD_CLOSE}`);
  }
  for (const e of entries) {
    const belief = typeof e.confidenceAfter === 'number' ? ` (${pct(e.confidenceBefore)} → ${pct(e.confidenceAfter)})` : '';
    const ids = e.claimIds?.length ? ` [${e.claimIds.join(', ')}]` : '';
    out.push(`- **${e.rule}**: ${oneLine(e.note ?? '')}${belief}${ids}`);
    const data = JSON.stringify({ k: ref.key, v: version, c: commitId, e }).replace(/>/g, '\\u003e');
    out.push(`${RECORD_OPEN}${data}${RECORD_CLOSE}`);
  }
  return `${out.join('\n')}\n`;
}

/**
 * Parses complete lines of log.md; `firstLine` numbers them for errors. Torn
 * records are skipped. `onRecord` returning `false` stops the parse there.
 */
export function parseLogLines(text, firstLine, file, onRecord) {
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].replace(/\r$/, '');
    if (!line.startsWith(RECORD_OPEN) || !line.endsWith(RECORD_CLOSE)) continue;
    let record;
    try {
      record = JSON.parse(line.slice(RECORD_OPEN.length, -RECORD_CLOSE.length));
    } catch (err) {
      throw malformed(`${file}:${firstLine + i}`, `log record is not valid JSON: ${err.message}`, err);
    }
    if (!record || typeof record.k !== 'string' || !isCount(record.v) || typeof record.c !== 'string' || typeof record.e !== 'object') {
      throw malformed(`${file}:${firstLine + i}`, 'log record must have k (slot key), v (version), c (commit id) and e (entry)');
    }
    if (onRecord(record) === false) return;
  }
}
