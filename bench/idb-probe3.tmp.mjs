import { IndexedDbStore, Memory } from 'credence';
const fidb = await import('fake-indexeddb');
const { IDBFactory, IDBKeyRange, IDBObjectStore, IDBIndex, IDBCursor } = fidb;
const N = Number(process.argv[2] ?? 20000);
const shape = process.argv[3] ?? 'replace';
let rec = null;
const wrap = (proto, label) => {
  for (const m of Object.getOwnPropertyNames(proto)) {
    const d = Object.getOwnPropertyDescriptor(proto, m);
    if (typeof d.value !== 'function' || m === 'constructor') continue;
    const orig = d.value;
    proto[m] = function (...a) {
      if (rec) { const k = `${label}.${m} ${this.name ?? this.source?.name ?? ''}`; rec[k] = (rec[k] ?? 0) + 1; }
      return orig.apply(this, a);
    };
  }
};
wrap(IDBObjectStore.prototype, 'store'); wrap(IDBIndex.prototype, 'index'); wrap(IDBCursor.prototype, 'cursor');
const store = new IndexedDbStore('probe', { indexedDB: new IDBFactory(), IDBKeyRange });
let t = Date.UTC(2026, 0, 1);
const memory = new Memory({ store, now: () => new Date(t).toISOString() });
const pred = shape === 'replace' ? 'context.current.task' : 'experience.turns';
const strategy = shape === 'replace' ? 'replace' : 'append';
for (let i = 0; i < N; i++) {
  if (i === 3000 || i === N - 200) rec = {};
  t += 1000;
  await memory.remember({ subject: 'agent', predicate: pred, object: `task ${i}` }, { strategy });
  if (i === 3199 || i === N - 1) { console.log(i, JSON.stringify(rec)); rec = null; }
}
