// Table descriptions kept in memory: dynalite reads a table's description from LevelDB (and decodes it) on every
// request, twice a join (the hold's UpdateItem and the session's BatchWriteItem); DynamoDB does not. A description
// changes only through dynalite's table actions (create, update, delete), which write it through the same store, so
// every write and delete there drops the kept copy, and a read that overlapped a write keeps nothing. Each read gets
// its own copy: the table actions change the object they read before they write it back.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const db = require('dynalite/db/index.js');

/** Wraps a dynalite store's table sub-database with a cache of its descriptions (by table name). */
export function cacheTableDescriptions(store) {
  const tables = store.tableDb;
  if (tables.cached) return store;
  const kept = new Map();
  // A read keeps what it read only if no write was under way when it started or began while it ran: LevelDB may
  // answer a read issued during a write with the value from before it.
  let writes = 0;
  let writing = 0;
  const { get, put, del } = tables;
  tables.get = (name, cb) => {
    const json = kept.get(name);
    if (json !== undefined) return queueMicrotask(() => cb(null, JSON.parse(json)));
    const seen = writing === 0 ? writes : -1;
    get.call(tables, name, (err, table) => {
      if (!err && table && typeof table === 'object' && seen === writes && writing === 0)
        kept.set(name, JSON.stringify(table));
      cb(err, table);
    });
  };
  const write = (op, args, cb) => {
    writes++;
    writing++;
    kept.delete(args[0]);
    op.call(tables, ...args, (...result) => {
      writing--;
      cb?.(...result);
    });
  };
  tables.put = (name, value, cb) => write(put, [name, value], cb);
  tables.del = (name, cb) => write(del, [name], cb);
  const recreate = store.recreate;
  if (recreate)
    store.recreate = (...args) => {
      writes++;
      kept.clear();
      // The new store's table sub-database replaces this one: it keeps its own descriptions.
      const out = recreate.apply(store, args);
      cacheTableDescriptions(store);
      return out;
    };
  tables.cached = true;
  return store;
}

/** Every store dynalite creates from now on keeps its table descriptions (call before creating the server). */
export function keepTableDescriptions() {
  const create = db.create;
  if (create.keepsTables) return;
  const wrapped = (options) => cacheTableDescriptions(create(options));
  wrapped.keepsTables = true;
  db.create = wrapped;
}
