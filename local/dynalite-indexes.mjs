// Index writes as DynamoDB makes them: dynalite rewrites an item's secondary-index entries on every write of the item,
// even when nothing the index holds changed. DynamoDB writes an index only when the write changes an attribute the
// index projects (its key, the table's key, its projected attributes). Every join updates the account item, which
// stays in the `running` index (partition HOLDS) while it holds credits, so dynalite paid one index put per join
// that DynamoDB does not (0.12 ms of the worker's ~2.1 ms per join, measured).
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const db = require('dynalite/db/index.js');

/**
 * True when no secondary index of `table` would see a change from `existingItem` to `item` (attribute maps as
 * dynalite stores them): every projected attribute is equal. An index projecting ALL compares whole items, which
 * costs about what the put it saves does, so such a table is left to dynalite.
 */
export function indexEntriesUnchanged(table, existingItem, item) {
  if (!existingItem || !item) return false;
  const tableKeys = table.KeySchema.map((k) => k.AttributeName);
  for (const index of [...(table.LocalSecondaryIndexes ?? []), ...(table.GlobalSecondaryIndexes ?? [])]) {
    if (index.Projection.ProjectionType === 'ALL') return false;
    const projected = [
      ...index.KeySchema.map((k) => k.AttributeName),
      ...tableKeys,
      ...(index.Projection.NonKeyAttributes ?? []),
    ];
    for (const name of projected) if (!sameValue(existingItem[name], item[name])) return false;
  }
  return true;
}

function sameValue(a, b) {
  if (a === b) return true;
  if (!a || !b) return false;
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Makes dynalite skip index writes that change nothing (all its write actions go through `db.updateIndexes`). */
export function skipUnchangedIndexEntries() {
  const updateIndexes = db.updateIndexes;
  if (updateIndexes.skipsUnchanged) return;
  const patched = (store, table, existingItem, item, cb) =>
    indexEntriesUnchanged(table, existingItem, item)
      ? cb()
      : updateIndexes(store, table, existingItem, item, cb);
  patched.skipsUnchanged = true;
  db.updateIndexes = patched;
}
