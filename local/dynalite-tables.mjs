// Table descriptions kept in memory: dynalite reads a table's description from LevelDB (and decodes it) on every
// request, twice a join (the hold's UpdateItem and the session's BatchWriteItem); DynamoDB does not. A description
// changes only through dynalite's table actions (create, update, delete), which write it through the same store, so
// every write and delete there drops the kept copy. Each read gets its own copy: the table actions change the object
// they read before they write it back.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const db = require('dynalite/db/index.js');

/** Wraps a dynalite store's table sub-database with a cache of its descriptions (by table name). */
export function cacheTableDescriptions(store) {
  const tables = store.tableDb;
  if (tables.cached) return store;
  const kept = new Map();
  // Bumped by every write: a read that started before one must not keep what it read.
  let writes = 0;
  const { get, put, del } = tables;
  tables.get = (name, cb) => {
    const json = kept.get(name);
    if (json !== undefined) return queueMicrotask(() => cb(null, JSON.parse(json)));
    const seen = writes;
    get.call(tables, name, (err, table) => {
      if (!err && table && typeof table === 'object' && seen === writes)
        kept.set(name, JSON.stringify(table));
      cb(err, table);
    });
  };
  tables.put = (name, value, cb) => {
    writes++;
    kept.delete(name);
    put.call(tables, name, value, cb);
  };
  tables.del = (name, cb) => {
    writes++;
    kept.delete(name);
    del.call(tables, name, cb);
  };
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
