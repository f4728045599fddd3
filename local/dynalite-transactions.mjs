// TransactWriteItems for dynalite, which has no transactions: condition checks plus one write, atomic as DynamoDB's.
// The condition-checked items stay locked (dynalite's own item locks) while the write runs with its own condition,
// so no other write can change them in between; a check cannot change anything, so there is nothing to roll back.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const db = require('dynalite/db/index.js');
const validations = require('dynalite/validations/index.js');

/** The write kinds a transaction may carry (one of them), with dynalite's action and validation for each. */
const writes = {
  Put: 'putItem',
  Update: 'updateItem',
  Delete: 'deleteItem',
};

export const transactWriteTarget = 'DynamoDB_20120810.TransactWriteItems';

/**
 * Builds dynalite's server with the store it makes kept at hand, and answers TransactWriteItems before dynalite's
 * own handler (which refuses the operation).
 */
export function withTransactions(makeServer) {
  let store;
  const create = db.create;
  db.create = (options) => {
    store = create(options);
    return store;
  };
  let server;
  try {
    server = makeServer();
  } finally {
    db.create = create;
  }
  const [dynaliteHandler] = server.listeners('request');
  server.removeAllListeners('request');
  server.on('request', (req, res) => {
    if (req.headers['x-amz-target'] !== transactWriteTarget) return dynaliteHandler(req, res);
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      transactWriteItems(store, JSON.parse(Buffer.concat(chunks).toString() || '{}')).then(
        (body) => send(res, 200, body),
        (err) =>
          send(res, err.statusCode ?? 500, err.body ?? { __type: 'InternalFailure', message: String(err) }),
      );
    });
  });
  return server;
}

function send(res, status, body) {
  const json = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/x-amz-json-1.0',
    'content-length': Buffer.byteLength(json),
    'x-amzn-requestid': `local-${Date.now()}`,
  });
  res.end(json);
}

function validationError(message) {
  const err = new Error(message);
  err.statusCode = 400;
  err.body = { __type: 'com.amazonaws.dynamodb.v20120810#ValidationException', message };
  return err;
}

/** One item's request, checked and parsed (its expressions into `_condition`, `_updates`) as dynalite does. */
function parsed(store, action, data) {
  const validation = require(`dynalite/validations/${action}.js`);
  const typed = validations.checkTypes(data, validation.types);
  validations.checkValidations(typed, validation.types, validation.custom, store);
  return typed;
}

const call = (fn) =>
  new Promise((resolve, reject) => fn((err, value) => (err ? reject(err) : resolve(value))));

async function transactWriteItems(store, body) {
  const items = body.TransactItems ?? [];
  const checks = [];
  let write;
  for (const [index, entry] of items.entries()) {
    const [[kind, data]] = Object.entries(entry);
    if (kind === 'ConditionCheck') checks.push({ index, data: parsed(store, 'deleteItem', data) });
    else if (writes[kind] && !write)
      write = { index, action: writes[kind], data: parsed(store, writes[kind], data) };
    else
      throw validationError(
        `local TransactWriteItems: unsupported item ${kind} (condition checks and one write)`,
      );
  }
  const reasons = items.map(() => ({ Code: 'None' }));
  const locked = [];
  try {
    for (const check of checks) {
      const table = await call((cb) => store.getTable(check.data.TableName, cb));
      const itemDb = store.getItemDb(check.data.TableName);
      const key = db.createKey(check.data.Key, table);
      // Released once the write is done: nothing changes a checked item between its check and the write.
      locked.push(await new Promise((resolve) => itemDb.lock(key, (release) => resolve(release(() => {})))));
      const item = await call((cb) => itemDb.get(key, cb)).catch((err) => {
        if (err.name === 'NotFoundError') return undefined;
        throw err;
      });
      if (db.checkConditional(check.data, item)) {
        reasons[check.index] = { Code: 'ConditionalCheckFailed', Message: 'The conditional request failed' };
      }
    }
    const checksPassed = reasons.every((r) => r.Code === 'None');
    if (write && checksPassed) {
      const action = require(`dynalite/actions/${write.action}.js`);
      try {
        await call((cb) => action(store, write.data, cb));
      } catch (err) {
        if (!String(err.body?.__type ?? '').endsWith('ConditionalCheckFailedException')) throw err;
        reasons[write.index] = { Code: 'ConditionalCheckFailed', Message: 'The conditional request failed' };
      }
    } else if (write) {
      // Cancelled already: the write's own condition is still reported, as DynamoDB reports every item's.
      const table = await call((cb) => store.getTable(write.data.TableName, cb));
      const keyAttrs = write.data.Key ?? keyOf(write.data.Item, table);
      const item = await call((cb) =>
        store.getItemDb(write.data.TableName).get(db.createKey(keyAttrs, table), cb),
      ).catch((err) => {
        if (err.name === 'NotFoundError') return undefined;
        throw err;
      });
      if (db.checkConditional(write.data, item)) {
        reasons[write.index] = { Code: 'ConditionalCheckFailed', Message: 'The conditional request failed' };
      }
    }
  } finally {
    for (const release of locked) release();
  }
  if (reasons.every((r) => r.Code === 'None')) return {};
  const err = new Error('cancelled');
  err.statusCode = 400;
  err.body = {
    __type: 'com.amazonaws.dynamodb.v20120810#TransactionCanceledException',
    message: `Transaction cancelled, please refer cancellation reasons for specific reasons [${reasons.map((r) => r.Code).join(', ')}]`,
    CancellationReasons: reasons,
  };
  throw err;
}

/** A Put's key attributes, by the table's key schema. */
function keyOf(item, table) {
  return Object.fromEntries(table.KeySchema.map((k) => [k.AttributeName, item[k.AttributeName]]));
}
